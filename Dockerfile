# sigboard: the Streamlit leaderboard in a container.
#   docker build -t sigboard .
#   docker run -p 8501:8501 -v sigboard-data:/data sigboard                 # SQLite in the volume
#   docker run -p 8501:8501 -e SIGBOARD_DB_URL=postgresql+psycopg://user:pw@db:5432/sigboard sigboard
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first, so code changes don't reinstall them (all wheels: no compiler needed).
COPY requirements.txt ./
RUN pip install -r requirements.txt

# An unprivileged user owns the data volume and nothing else.
RUN groupadd --system --gid 10001 sigboard \
    && useradd --system --uid 10001 --gid sigboard --home-dir /home/sigboard --create-home sigboard \
    && mkdir -p /data \
    && chown sigboard:sigboard /data

COPY pyproject.toml README.md ./
COPY engine/ ./engine/
COPY app/ ./app/
COPY data/ ./data/
# The package itself (its dependencies are the pins above): puts `sigboard` on the path.
RUN pip install --no-deps -e .

# Bytecode compiled at build time: a fresh container imports engine/ and app/ from
# __pycache__ instead of compiling them on its first page (PYTHONDONTWRITEBYTECODE only
# stops writing at run time, where the unprivileged user could not write here anyway).
RUN python -m compileall -q engine app

# The engine's Numba kernels compiled at build time too (`sigboard warm`), into a cache the
# unprivileged user owns: Numba uses a cache folder only where it can write, and without
# one the server would compile them (~10 s of CPU) before opening its port (#27 item 3).
# A host whose CPU differs from the build machine's recompiles them there, once.
ENV NUMBA_CACHE_DIR=/app/.numba-cache
RUN sigboard warm && chown -R sigboard:sigboard /app/.numba-cache

# Configuration (all overridable with `docker run -e`):
# - SIGBOARD_DB_URL: SQLAlchemy URL of the results store, e.g. a shared PostgreSQL for
#   several replicas; when unset, the SQLite file SIGBOARD_DB_PATH in the /data volume.
# - SIGBOARD_UPLOAD_TOKEN / SIGBOARD_UPLOAD_ALLOW: restrict uploads (token / e-mail allow-list).
# - STREAMLIT_SERVER_MAX_UPLOAD_SIZE: largest upload in MB.
# - OPENBLAS_NUM_THREADS / OMP_NUM_THREADS: one BLAS thread per computation; the server runs
#   the sessions' computations side by side, and threads fighting over the same cores
#   doubled the CPU time of large matrix products (measured on 2 cores, issue #19).
ENV SIGBOARD_DB_PATH=/data/sigboard.db \
    OPENBLAS_NUM_THREADS=1 \
    OMP_NUM_THREADS=1 \
    STREAMLIT_SERVER_HEADLESS=true \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_MAX_UPLOAD_SIZE=50 \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501

VOLUME ["/data"]

USER sigboard

EXPOSE 8501

# python:3.11-slim has no curl: ask the health endpoint with the standard library.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status == 200 else 1)"]

# `sigboard serve` runs `streamlit run app/server.py` with the app's settings (app/streamlit.toml).
CMD ["sigboard", "serve", \
     "--server.address=0.0.0.0", "--server.port=8501", \
     "--server.headless=true", "--browser.gatherUsageStats=false"]
