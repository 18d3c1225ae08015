// Output of run_command for the model: head and tail of each stream within a byte budget, the cut marked, sizes in words.

/** Holds the first and last `limit` bytes of a stream, whatever its length, plus the total count. */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly limit: number) {}

  /** Bytes seen so far. */
  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.limit) {
      const part = chunk.subarray(0, this.limit - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.limit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  /** The text within `budget` bytes (at most the limit): all of it, or the first and last halves around a marker of what was cut. */
  render(budget: number): string {
    const allowed = Math.min(budget, this.limit);
    if (this.total <= allowed) return Buffer.concat(this.head).subarray(0, this.total).toString("utf8");
    const half = Math.floor(allowed / 2);
    const first = Buffer.concat(this.head).subarray(0, half);
    const tail = Buffer.concat(this.tail);
    const last = tail.subarray(Math.max(0, tail.length - half));
    const cut = this.total - first.length - last.length;
    return `${first.toString("utf8")}\n\n[... ${cut} bytes cut from the middle of this output ...]\n\n${last.toString("utf8")}`;
  }
}

/** Shares one byte budget between stdout and stderr: both whole when they fit, else stderr keeps at least a quarter (errors matter). */
export function splitBudget(stdoutBytes: number, stderrBytes: number, budget: number): { stdout: number; stderr: number } {
  if (stdoutBytes + stderrBytes <= budget) return { stdout: stdoutBytes, stderr: stderrBytes };
  const stderr = Math.min(stderrBytes, Math.max(Math.floor(budget / 4), budget - stdoutBytes));
  return { stdout: budget - stderr, stderr };
}

/** A byte count for a person: whole GiB, MiB or KiB where it divides evenly, else bytes. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
