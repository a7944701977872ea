/** Where a command writes: stdout for results, stderr for warnings and errors. Injected for tests. */
export interface CliIO {
  out(text: string): Promise<void>;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

export function processIO(): CliIO {
  return {
    out: (text) => new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve()))),
    err: (text) => {
      process.stderr.write(text);
    },
    env: process.env,
  };
}
