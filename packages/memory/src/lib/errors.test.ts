import { ToolError } from '@lectern/core';
import { describe, expect, test } from 'vitest';
import { API_NAMES, isMemoryError, MemoryError, renderError, TOOL_NAMES } from './errors.js';

describe('MemoryError', () => {
  test('fills parameter and operation names for a surface and keeps the rest', () => {
    const e = new MemoryError(
      'RANGE_TOO_LARGE',
      'ask for {param:startLine} to {param:endLine}; run {op:reindex}.',
      { param: 'endLine', suggestions: ['x'], details: { max_lines: 200 } },
    );
    expect(e.message).toBe('ask for `startLine` to `endLine`; run reindex().');
    expect(e.details).toEqual({ max_lines: 200, param: 'endLine' });
    const tool = e.render(TOOL_NAMES);
    expect(tool.message).toBe('ask for `start_line` to `end_line`; run memory_reindex.');
    expect(tool.toJSON()).toEqual({
      error: tool.message,
      code: 'RANGE_TOO_LARGE',
      suggestions: ['x'],
      details: { max_lines: 200, param: 'end_line' },
    });
    // Rendering again starts from the template, not from the previous text.
    expect(tool.render(API_NAMES).message).toBe(e.message);
  });

  test('a core error attributed to a parameter keeps its text as written', () => {
    const core = new ToolError('PATH_ESCAPES_ROOT', 'path {param:path} climbs out', {
      details: { x: 1 },
    });
    const e = MemoryError.about(core, 'path');
    expect(e.render(TOOL_NAMES).message).toBe('path {param:path} climbs out');
    expect(e.render(TOOL_NAMES).details).toEqual({ x: 1, param: 'path' });
  });

  test('renderError leaves anything that is not a store error alone', () => {
    const other = new ToolError('X', 'plain');
    expect(renderError(other, TOOL_NAMES)).toBe(other);
    expect(isMemoryError(other)).toBe(false);
    expect(isMemoryError(new MemoryError('Y', 'y'))).toBe(true);
  });
});
