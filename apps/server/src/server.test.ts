// The server's JSON Schema validator is the SDK's Ajv, built on first use: it must still check
// what a client answers to an elicitation, through a real client over the SDK's in-memory pair.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from './compose.js';
import { parseConfig } from './config.js';
import { createMcpServer, lazyJsonSchemaValidator } from './server.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-server-'));
writeFileSync(join(dir, 'a.md'), '# A\n\ntext\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = {
  type: 'object' as const,
  properties: {
    name: { type: 'string' as const, minLength: 2 },
    age: { type: 'integer' as const },
  },
  required: ['name'],
};

describe('lazyJsonSchemaValidator', () => {
  it('gives the same verdicts as the SDK Ajv validator', () => {
    const ours = lazyJsonSchemaValidator.getValidator<unknown>(schema);
    const sdk = new AjvJsonSchemaValidator().getValidator<unknown>(schema);
    for (const input of [{ name: 'Ada' }, { name: 'A' }, { age: 3 }, { name: 'Bo', age: 1.5 }, 7]) {
      expect(ours(input).valid).toBe(sdk(input).valid);
    }
    expect(ours({ name: 'Ada', age: 3 }).valid).toBe(true);
    expect(ours({ name: 'A' }).valid).toBe(false);
  });

  it('checks an elicitation answer on a served server', async () => {
    const composition = await compose(parseConfig({ docs: [{ id: 'docs', path: dir }] }, dir));
    const server = createMcpServer(composition);
    const client = new Client(
      { name: 'server-test', version: '0.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    let answer: Record<string, unknown> = { name: 'A' };
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: answer }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const request = { message: 'who?', requestedSchema: schema };
      await expect(server.server.elicitInput(request)).rejects.toThrow(/does not match/i);
      answer = { name: 'Ada' };
      await expect(server.server.elicitInput(request)).resolves.toMatchObject({
        action: 'accept',
        content: { name: 'Ada' },
      });
    } finally {
      await client.close();
      await server.close();
      await composition.close();
    }
  });
});
