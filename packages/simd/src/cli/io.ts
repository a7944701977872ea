/** Where a command writes: stdout for results, stderr for warnings and errors. Injected for tests. */
export interface CliIO {
  out(text: string): Promise<void>;
  err(text: string): void;
  /** One line of stdin, without its line end; what is left at the end of input ('' when nothing). */
  readLine(): Promise<string>;
  env: NodeJS.ProcessEnv;
}

/** Reads one line from a readable stream, then stops reading (the rest stays unread). */
export function readLineFrom(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (line: string) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.pause();
      resolve(line.replace(/\r$/, ''));
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end !== -1) finish(text.slice(0, end));
    };
    const onEnd = () => finish(text);
    const onError = (error: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      reject(error);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.resume();
  });
}

export function processIO(): CliIO {
  return {
    out: (text) => new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve()))),
    err: (text) => {
      process.stderr.write(text);
    },
    readLine: () => readLineFrom(process.stdin),
    env: process.env,
  };
}
