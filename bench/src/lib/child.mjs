// A long-lived Node child answering one JSON line per JSON line (see ../peers/*.mjs).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { peakRssMb } from './mcp.mjs';

/** Starts `node script ...args`; `request(obj)` resolves to the parsed reply line. */
export function jsonChild(script, args = []) {
  const p = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: p.stdout });
  const waiting = [];
  lines.on('line', (l) => waiting.shift()?.resolve(JSON.parse(l)));
  p.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${script} exited with ${code}`));
  });
  return {
    pid: p.pid,
    request(msg) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        p.stdin.write(`${JSON.stringify(msg)}\n`);
      });
    },
    peakRssMb: () => peakRssMb(p.pid),
    close: () => p.stdin.end(),
  };
}
