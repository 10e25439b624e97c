import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeMarkdown, markdownReport } from '../../src/report/md.ts';
import { abaComparison, CTX } from './fixtures.ts';

test('the results table has one row per subject, regressions first, with the hand-derived figures', () => {
  const lines = markdownReport(abaComparison(), CTX).split('\n');
  const header = lines.findIndex((l) => l.startsWith('| Subject | A mean (ns/call)'));
  assert.equal(
    lines[header],
    '| Subject | A mean (ns/call) | B mean (ns/call) | A2 mean (ns/call) | Change (ns) | Change (%) | 95 % CI (%) | Round CV A/B/A2 (%) | Rounds x ops | p run-level t | p run-level t (Holm) | p Mann-Whitney | Verdict |',
  );
  assert.equal(lines[header + 1], '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  // Raw p 1.0e-4 in each of 3 subjects: Holm gives 3 x 1.0e-4 to each. The change is the one the
  // verdict used, B vs A+A2: 46.10 - (45.20 + 45.25) / 2 = +0.875 (+1.93 %); 170.6 - 182.5 = -11.9.
  assert.equal(lines[header + 2], '| getppid | 45.20 | 46.10 | 45.25 | +0.88 | +1.9 | +1.5 to +2.5 | 0.5/0.5/0.5 | 3 processes per run x 5 rounds x 20000 calls | 1.0e-4 | 3.0e-4 | 0.10 | slower |');
  assert.equal(lines[header + 3], '| sched\\_getattr | 182.4 | 170.6 | 182.6 | -11.9 | -6.5 | -6.9 to -6.1 | 0.3/0.4/0.3 | 3 processes per run x 5 rounds x 20000 calls | 1.0e-4 | 3.0e-4 | 0.10 | faster |');
});

test('the drift table shows A2 vs A and B against the pooled baseline', () => {
  const text = markdownReport(abaComparison(), CTX);
  // 182.6 / 182.4 - 1 = +0.110 %; B vs pooled 170.6 / 182.5 - 1 = -6.52 %.
  // Drift p 0.40 in each of 3 subjects: Holm 3 x 0.40 = 1.2, capped at 1.
  assert.ok(text.includes('| sched\\_getattr | +0.11 | -0.20 to +0.40 | 0.40 | 1.0 | no difference proven | -6.5 | -6.9 to -6.1 | -6.5 | no |'));
  assert.ok(!markdownReport(abaComparison({ withA2: false }), CTX).includes('baseline drift'));
});

test('the reproduce section is a shell code block of the exact commands', () => {
  const text = markdownReport(abaComparison(), CTX);
  assert.ok(
    text.includes(
      '## Reproduce\n\n```sh\nhintlab bench --cpu 1 --rounds 15 --label stock\nhintlab bench --cpu 1 --rounds 15 --label patched\n' +
        'hintlab bench --cpu 1 --rounds 15 --label stock-again\nhintlab compare stock patched stock-again --threshold 1 --alpha 0.05 --correction holm\n```',
    ),
  );
});

test('user text cannot break a table or inject markup', () => {
  assert.equal(escapeMarkdown('a|b <img> *x* `c`\nd'), 'a\\|b \\<img\\> \\*x\\* \\`c\\` d');
  const c = abaComparison();
  c.subjects[0]!.subject = 'evil|subject';
  const row = markdownReport(c, CTX).split('\n').find((l) => l.startsWith('| evil'));
  assert.equal(row?.split(/(?<!\\)\|/).length, 15, 'thirteen cells, the pipe in the name escaped');
});
