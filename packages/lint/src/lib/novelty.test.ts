import { describe, expect, it } from 'vitest';
import { NOVELTY_FEATURES, noveltyFeatures, novelWords } from './novelty.js';

describe('novelWords', () => {
  it('counts nothing when the description only restates the name or title', () => {
    expect(
      novelWords({ name: 'x402-is-deficient', description: 'Is Deficient: Is Deficient' }),
    ).toBe(0);
    expect(novelWords({ name: 'json_type', title: 'JSON Type', description: 'JSON Type' })).toBe(0);
    // camelCase names split into words; inflections share a stem.
    expect(novelWords({ name: 'getUserProfiles', description: 'Gets the user profile.' })).toBe(0);
  });

  it('counts the distinct content words the name does not carry', () => {
    expect(
      novelWords({
        name: 'podman_get_container_logs',
        description: 'Invoke the get_container_logs operation.',
      }),
    ).toBe(2); // invoke, operation
    expect(
      novelWords({
        name: 'notes_outline',
        description: 'List the headings of one note, with their line numbers and levels.',
      }),
    ).toBe(6); // list, headings, their, line, numbers, levels ("note" is in the name)
  });

  it('ignores stop words, short words and numbers, in several languages', () => {
    expect(novelWords({ name: 'a', description: 'the and of to 42 de la y und' })).toBe(0);
    expect(novelWords({ name: 'x', description: 'Devuelve la lista de notas' })).toBe(3);
  });
});

describe('noveltyFeatures', () => {
  it('returns one value per feature name', () => {
    const v = noveltyFeatures({ name: 'x', description: 'Something useful here.' }, 3, 0, 0);
    expect(v).toHaveLength(NOVELTY_FEATURES.length);
  });

  it('flags a route as the description, a generated wrapper and sales copy', () => {
    const at = (name: (typeof NOVELTY_FEATURES)[number]) => NOVELTY_FEATURES.indexOf(name);
    const route = noveltyFeatures({ name: 'events', description: 'GET /calendar/events' }, 3, 0, 0);
    expect(route[at('route_as_description')]).toBe(1);
    const wrapper = noveltyFeatures(
      { name: 'update_event', description: 'Run Google calendar action: update event' },
      6,
      0,
      0,
    );
    expect(wrapper[at('generated_wrapper')]).toBe(1);
    const namespaced = noveltyFeatures(
      {
        name: 'flutter::env.preflight',
        description: 'MediaSFU Flutter :: env.preflight (command).',
      },
      5,
      0,
      0,
    );
    expect(namespaced[at('generated_wrapper')]).toBe(1);
    const sales = noveltyFeatures(
      {
        name: 'recruit-check-tool',
        description:
          'A production-ready recruit check tool system. Get a structured, repeatable workflow delivered as a copy-paste prompt pack.',
      },
      20,
      1,
      0,
    );
    expect(sales[at('marketing_copy')]).toBeCloseTo(1, 5);
    const plain = noveltyFeatures(
      { name: 'read_note', description: 'Read one note by its path; fails on an unknown path.' },
      10,
      1,
      1,
    );
    expect(plain[at('route_as_description')]).toBe(0);
    expect(plain[at('generated_wrapper')]).toBe(0);
    expect(plain[at('marketing_copy')]).toBe(0);
    expect(plain[at('many_params_unmentioned')]).toBe(0);
    expect(
      noveltyFeatures({ name: 'calc', description: 'Evaluate arithmetic.' }, 2, 9, 0)[
        at('many_params_unmentioned')
      ],
    ).toBe(1);
  });
});
