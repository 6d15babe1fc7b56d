// A deterministic promptfoo custom provider (file://sigtest_promptfoo_provider.js): no network.
// It answers the test's `answer` var unless a hash of (model, rendered prompt) makes it miss,
// tersely or in a sentence as the prompt asks, so scores differ between models and prompts.
const crypto = require('crypto');

class SigtestProvider {
  constructor(options) {
    this.providerId = options.id || 'sigtest';
    this.config = options.config || {};
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    const model = this.config.model || 'model';
    const digest = crypto.createHash('sha256').update(`${model}\n${prompt}`).digest();
    const vars = (context && context.vars) || {};
    const right = String(vars.answer);
    const answer = digest[0] % 3 === 0 ? String(Number(right) + 1) : right;
    const output = prompt.includes('sentence') ? `The answer is ${answer}.` : answer;
    return { output, tokenUsage: { total: 0, prompt: 0, completion: 0 } };
  }
}

module.exports = SigtestProvider;
