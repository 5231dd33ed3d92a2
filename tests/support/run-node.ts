// A Node script run to its end in a process of its own, as an operator runs it: its exit status
// and what it printed.
import { spawn } from "node:child_process";

export type NodeRun = { code: number | null; stdout: string; stderr: string };

/** Runs `node <args>` (this test run's Node) in `cwd` with exactly `env`. */
export function runNode(args: string[], { cwd, env }: { cwd: string; env: NodeJS.ProcessEnv }): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
