import { tempTree } from './mcp.js';

/** Long text with emoji and CJK so that page boundaries fall inside surrogate pairs. */
export const WIDE_TEXT = Array.from(
  { length: 60 },
  (_, i) => `第${i}行 🎉 emoji ${'😀'.repeat(i % 7)} 中文字符 ${i}`,
).join('\n');

/** A documentation root on disk covering the cases the issue lists. */
export function docsFixture() {
  return tempTree({
    'guide.md': [
      'Guide',
      '=====',
      '',
      'Intro text.',
      '',
      '## Install',
      '',
      '```sh',
      '# not a heading',
      'make install',
      '```',
      '',
      '### Linux',
      '',
      'Use apt.',
      '',
      '### macOS',
      '',
      'Use brew.',
      '',
      'Configure',
      '---------',
      '',
      'Edit `lectern.yaml` to configure the cache timeout.',
      '',
    ].join('\n'),
    'faq.md':
      '# FAQ\n\n## Install\n\nFirst.\n\n### Example\n\nOne.\n\n## Install\n\nSecond.\n\n### Example\n\nTwo.\n',
    'front.md': '---\ntitle: Front\n# not a heading\n---\n\n# Front matter page\n\nBody.\n',
    'crlf.md': '# Windows\r\n\r\nLine one.\r\n\r\n## Part\r\n\r\nLine two.\r\n',
    'empty.md': '',
    'plain.md': 'No headings at all, just a paragraph\nover two lines.\n',
    'wide.md': `# Wide\n\n${WIDE_TEXT}\n\n## After\n\nDone.\n`,
    'ref/api.md':
      '# API\n\n## Errors\n\nEvery error has a code and a retry hint.\n\n## Tokens\n\nRotate tokens monthly.\n',
  });
}
