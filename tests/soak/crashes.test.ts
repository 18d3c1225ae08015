// The SIGKILL crash test of tests/reliability at soak size: more lanes, many more kills.
import { describe, expect, it } from "vitest";
import { runCrashLane } from "../reliability/crash-lane.js";

const LANES = Number(process.env["SOAK_CRASH_LANES"] ?? 2);
const KILLS_PER_LANE = Number(process.env["SOAK_CRASH_KILLS"] ?? 250);

describe("a turn runner killed with SIGKILL (soak)", () => {
  it(`leaves a session that loads, loses nothing complete and makes valid requests (${LANES * KILLS_PER_LANE} kills)`, async () => {
    const seed = process.env["SOAK_SEED"] !== undefined ? Number(process.env["SOAK_SEED"]) : Date.now();
    const lanes = await Promise.all(Array.from({ length: LANES }, (_, lane) => runCrashLane({ kills: KILLS_PER_LANE, seed: seed + lane })));
    expect(lanes.reduce((sum, lane) => sum + lane.kills, 0)).toBe(LANES * KILLS_PER_LANE);
    console.info(`[soak] crashes survived (seed ${seed}): ${JSON.stringify(lanes)}`);
  });
});
