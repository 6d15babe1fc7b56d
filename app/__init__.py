"""sigboard's Streamlit app: pages, charts, URL state and cached engine calls."""
