import { describe, expect, it } from 'vitest';
import { computeInvocationCost, computeSignals, requiredSubtree } from './signals.js';
import type { JsonSchema } from './types.js';

const str = { type: 'string' };
const obj = (properties: Record<string, unknown>, required: string[] = []) =>
  ({ type: 'object', properties, required }) as JsonSchema;
const cost = (schema: JsonSchema) => computeInvocationCost(requiredSubtree(schema));

describe('invocation cost over the required subtree', () => {
  it('prices eight flat scalars at 8 and the same wrapped in an object at 11', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const flat = obj(Object.fromEntries(names.map((n) => [n, str])), names);
    expect(requiredSubtree(flat)).toEqual({
      requiredFieldCount: 8,
      schemaDepth: 1,
      unionChoiceCount: 0,
    });
    expect(cost(flat)).toBe(8);
    expect(cost(obj({ args: flat }, ['args']))).toBe(11);
  });

  it('reproduces the published 13: nested object with a three-branch union', () => {
    const union = {
      oneOf: [
        obj({ kind: { const: 'a' }, x: str }, ['kind']),
        obj({ kind: { const: 'b' } }, []),
        obj({ kind: { const: 'c' } }, []),
      ],
    };
    const schema = obj({ q: obj({ a: str, b: str, c: union }, ['a', 'b', 'c']) }, ['q']);
    expect(requiredSubtree(schema)).toEqual({
      requiredFieldCount: 5,
      schemaDepth: 3,
      unionChoiceCount: 2,
    });
    expect(cost(schema)).toBe(13);
  });

  it('ignores optional subtrees, the nullable idiom, enums and type arrays', () => {
    const schema = obj(
      {
        a: { anyOf: [str, { type: 'null' }] },
        b: { type: ['string', 'null'] },
        c: { enum: ['x', 'y', 'z'] },
        deep: obj({ x: obj({ y: str }, ['y']) }, ['x']),
      },
      ['a', 'b', 'c'],
    );
    expect(requiredSubtree(schema)).toEqual({
      requiredFieldCount: 3,
      schemaDepth: 1,
      unionChoiceCount: 0,
    });
    const realUnion = obj({ a: { anyOf: [str, { type: 'number' }, { type: 'null' }] } }, ['a']);
    expect(requiredSubtree(realUnion).unionChoiceCount).toBe(2);
  });

  it('resolves $ref against $defs, stops at recursion, caps depth at 10', () => {
    const withRef = {
      type: 'object',
      properties: { p: { $ref: '#/$defs/point' } },
      required: ['p'],
      $defs: { point: obj({ x: str, y: str }, ['x', 'y']) },
    } as JsonSchema;
    expect(requiredSubtree(withRef)).toEqual({
      requiredFieldCount: 3,
      schemaDepth: 2,
      unionChoiceCount: 0,
    });
    const recursive = {
      type: 'object',
      properties: { node: { $ref: '#/definitions/node' } },
      required: ['node'],
      definitions: { node: obj({ child: { $ref: '#/definitions/node' }, v: str }, ['child', 'v']) },
    } as JsonSchema;
    const r = requiredSubtree(recursive);
    expect(r.requiredFieldCount).toBe(3);
    expect(r.schemaDepth).toBe(2);
    let deep: JsonSchema = obj({ leaf: str }, ['leaf']);
    for (let i = 0; i < 15; i++) deep = obj({ n: deep }, ['n']);
    expect(requiredSubtree(deep).schemaDepth).toBe(10);
  });

  it('counts an array of objects as one more level and scores empty schemas 0', () => {
    const schema = obj({ items: { type: 'array', items: obj({ id: str }, ['id']) } }, ['items']);
    expect(requiredSubtree(schema)).toEqual({
      requiredFieldCount: 2,
      schemaDepth: 2,
      unionChoiceCount: 0,
    });
    expect(requiredSubtree(null)).toEqual({
      requiredFieldCount: 0,
      schemaDepth: 0,
      unionChoiceCount: 0,
    });
    expect(requiredSubtree({ type: 'object' })).toEqual({
      requiredFieldCount: 0,
      schemaDepth: 0,
      unionChoiceCount: 0,
    });
    expect(requiredSubtree(obj({}, []))).toEqual({
      requiredFieldCount: 0,
      schemaDepth: 0,
      unionChoiceCount: 0,
    });
    expect(requiredSubtree(obj({ a: str }))).toEqual({
      requiredFieldCount: 0,
      schemaDepth: 1,
      unionChoiceCount: 0,
    });
  });
});

describe('context signals', () => {
  it('counts parameters, coverage (rounded), enums, nesting, annotations and title', () => {
    const s = computeSignals({
      name: 'read_page',
      title: 'Read a wiki page',
      description: 'x',
      inputSchema: obj(
        {
          a: { type: 'string', description: 'A.' },
          b: { type: 'string', description: ' ' },
          c: { enum: ['x'] },
          d: obj({}),
        },
        ['a'],
      ),
      annotations: { readOnlyHint: true },
    });
    expect(s).toMatchObject({
      paramCount: 4,
      requiredParamCount: 1,
      paramsWithDescriptions: 1,
      paramsWithEnums: 1,
      schemaDescriptionCoverage: 25,
      hasNestedObjects: true,
      invocationCost: 1,
      hasOutputSchema: false,
      hasAnnotations: true,
      annotationValues: { readOnly: true, destructive: null, idempotent: null, openWorld: null },
      titleIsMeaningful: true,
    });
    expect(
      computeSignals({ name: 't', inputSchema: obj({ a: { description: 'x' }, b: {}, c: {} }) })
        .schemaDescriptionCoverage,
    ).toBe(33);
    expect(
      computeSignals({
        name: 't',
        inputSchema: obj({ a: { description: 'x' }, b: { description: 'y' }, c: {} }),
      }).schemaDescriptionCoverage,
    ).toBe(67);
    expect(computeSignals({ name: 't' }).schemaDescriptionCoverage).toBe(100);
    expect(computeSignals({ name: 'abc', title: 'abc' }).titleIsMeaningful).toBe(false);
    expect(computeSignals({ name: 'abcdef', title: 'Abc' }).titleIsMeaningful).toBe(false);
  });
});
