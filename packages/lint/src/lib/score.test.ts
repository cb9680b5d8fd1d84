import { describe, expect, it } from 'vitest';
import { OfflineJudge } from './offline-judge.js';
import { scoreTool, scoreTools } from './score.js';
import type { Judge, ToolJudgeInput, ToolJudgement } from './types.js';

/** A judge that returns fixed scores and records what it was asked (a real Judge implementation). */
class FixedJudge implements Judge {
  readonly name = 'fixed';
  calls: ToolJudgeInput[] = [];
  constructor(
    private readonly score: number,
    private readonly contradiction = false,
  ) {}
  async judgeTool(input: ToolJudgeInput): Promise<ToolJudgement> {
    this.calls.push(input);
    const j = { score: this.score, justification: 'fixed' };
    return {
      scores: {
        purpose_clarity: j,
        usage_guidelines: j,
        behavioral_transparency: { score: 2, justification: 'fixed' },
        parameter_semantics: j,
        conciseness_structure: j,
        contextual_completeness: j,
      },
      annotationContradiction: this.contradiction,
      summary: 'fixed',
    };
  }
  async judgeServer(): Promise<never> {
    throw new Error('not used');
  }
}

describe('scoring pipeline (gates and post-processing)', () => {
  it('short-circuits a missing description to 1.0 / D without calling the judge', async () => {
    const judge = new FixedJudge(5);
    for (const description of [undefined, null, '   \n']) {
      const r = await scoreTool({ name: 'do_it', description }, ['other'], { judge });
      expect(r.tdqs).toBe(1);
      expect(r.tier).toBe('D');
      expect(r.flags).toEqual(['No Description']);
      expect(r.smells).toHaveLength(6);
      expect(Object.values(r.scores)).toEqual([1, 1, 1, 1, 1, 1]);
    }
    expect(judge.calls).toHaveLength(0);
  });

  it('caps purpose at 2 for a tautological description, whatever the judge says', async () => {
    const judge = new FixedJudge(5);
    const r = await scoreTool(
      { name: 'get_weather', title: 'Get Weather', description: '  GET WEATHER ' },
      [],
      { judge },
    );
    expect(r.flags).toContain('Tautological Description');
    expect(r.scores.purpose_clarity).toBe(2);
    expect(r.justifications.purpose_clarity.justification).toMatch(/Capped at 2/);
    expect(r.smells).toEqual(['purpose_clarity', 'behavioral_transparency']);
    const byName = await scoreTool({ name: 'get_weather', description: 'get_weather' }, [], {
      judge,
    });
    expect(byName.flags).toEqual(['Tautological Description']);
  });

  it('raises Annotation Contradiction from the judge and passes siblings without itself', async () => {
    const judge = new FixedJudge(4, true);
    const r = await scoreTool({ name: 'a', description: 'Creates a record.' }, ['a', 'b', 'c'], {
      judge,
    });
    expect(r.flags).toEqual(['Annotation Contradiction']);
    expect(judge.calls[0]?.siblingToolNames).toEqual(['b', 'c']);
    expect(r.tdqs).toBe(3.6); // 4,4,2,4,4,4 -> 3.6
    expect(r.contextSignals.inputHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('rejects a judge score outside 1-5 and duplicate or nameless tools', async () => {
    const bad = new FixedJudge(7);
    await expect(
      scoreTool({ name: 'a', description: 'Read x.' }, [], { judge: bad }),
    ).rejects.toThrow(/invalid purpose_clarity score: 7/);
    await expect(scoreTools([{ name: 'a' }, { name: 'a' }])).rejects.toThrow(/appears twice/);
    await expect(scoreTools([{ name: '' }])).rejects.toThrow(/tool #1 has no name/);
  });

  it('scores every tool with the others as siblings, in order', async () => {
    const judge = new FixedJudge(3);
    const r = await scoreTools(
      [
        { name: 'x', description: 'Read x.' },
        { name: 'y', description: 'Read y.' },
        { name: 'z', description: null },
      ],
      { judge, concurrency: 2 },
    );
    expect(r.map((t) => t.name)).toEqual(['x', 'y', 'z']);
    expect(judge.calls.map((c) => c.siblingToolNames)).toEqual(
      expect.arrayContaining([
        ['y', 'z'],
        ['x', 'z'],
      ]),
    );
    expect(r[2]?.flags).toEqual(['No Description']);
    const offline = await scoreTools([{ name: 'x', description: 'Read x.' }]);
    expect(offline[0]?.tier).toBeDefined();
    expect(new OfflineJudge().name).toBe('offline');
  });
});
