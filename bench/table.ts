// The bench's table: rows of a measurement, miniclaw's figure, its baseline, the ratio and the target, as Markdown.
import { cpus, loadavg, platform, arch } from "node:os";

/** One line of the table; empty strings where a column does not apply. */
export interface Row {
  measurement: string;
  miniclaw: string;
  baseline: string;
  ratio: string;
  target: string;
  /** "holds", "MISSED", or "" when the row has no target. */
  verdict: string;
}

/** The machine the figures come from. */
export interface Machine {
  cores: number;
  cpu: string;
  node: string;
  os: string;
  /** The 1-minute load average when the bench started: other work on the machine slows every timing. */
  loadAverage: number;
}

/** Describes this machine now. */
export function describeMachine(): Machine {
  const list = cpus();
  return {
    cores: list.length,
    cpu: list[0]?.model.trim() ?? "unknown CPU",
    node: process.version,
    os: `${platform()} ${arch()}`,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 10) / 10,
  };
}

/** One line naming the machine, printed above the table. */
export function machineLine(machine: Machine): string {
  return `Machine: ${machine.cores} cores, ${machine.cpu}, Node ${machine.node}, ${machine.os}; load average ${machine.loadAverage} at the start.`;
}

const HEADER: Row = { measurement: "measurement", miniclaw: "miniclaw", baseline: "baseline", ratio: "ratio", target: "target", verdict: "" };
const COLUMNS: Array<keyof Row> = ["measurement", "miniclaw", "baseline", "ratio", "target", "verdict"];

/** The rows as a Markdown table, columns padded so it also reads well in a terminal. */
export function formatTable(rows: readonly Row[]): string {
  const all = [HEADER, ...rows];
  const widths = COLUMNS.map((column) => Math.max(3, ...all.map((row) => row[column].length)));
  const line = (cells: string[]): string => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(COLUMNS.map((column) => HEADER[column])),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.map((row) => line(COLUMNS.map((column) => row[column]))),
  ].join("\n");
}

/** A ratio such as `1.12×`. */
export function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}×`;
}

/** "holds" or "MISSED". */
export function verdict(holds: boolean): string {
  return holds ? "holds" : "MISSED";
}
