// `npm run example:researcher`: the Weekend Researcher offline, printed as a few lines. Options: --budget USD, --keep.
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { runOffline } from "./offline.js";

/** Runs the example with `args` and writes its story to `out`; resolves to the exit code (0 when it went as the README says). */
export async function main(args: string[], out: { write(text: string): unknown }): Promise<number> {
  const { values } = parseArgs({ args, options: { budget: { type: "string" }, keep: { type: "boolean", default: false } } });
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && !(budget > 0)) {
    out.write(`--budget takes a number of dollars above 0, not "${values.budget}"\n`);
    return 1;
  }
  out.write("The Weekend Researcher, offline: the scripted model plays the researcher, a fake clock moves an hour per wake-up.\n");
  const result = await runOffline({ keep: values.keep, onLine: (line) => out.write(`${line}\n`), ...(budget !== undefined && { maxBudgetUsd: budget }) });
  if (values.keep) out.write(`Kept the workspace: ${result.workspace} (memory/weekend-brief.md is the brief, cron/runs.jsonl the runs).\n`);
  return result.rejected === 0 ? 0 : 1;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  process.exitCode = await main(process.argv.slice(2), process.stdout);
}
