// A turn runner killed with SIGKILL at random points, 10 times (`npm run soak` does 500): the session always loads, no complete record is
// lost, and the scripted model accepts every request made from what is left.
import { describe, expect, it } from "vitest";
import { runCrashLane, type CrashLaneStats } from "./crash-lane.js";

const LANES = 2;
const KILLS_PER_LANE = 5;

describe("a turn runner killed with SIGKILL", () => {
  it(`leaves a session that loads, loses nothing complete and makes valid requests (${LANES * KILLS_PER_LANE} kills)`, async () => {
    const seed = Date.now();
    const lanes: CrashLaneStats[] = await Promise.all(
      Array.from({ length: LANES }, (_, lane) => runCrashLane({ kills: KILLS_PER_LANE, seed: seed + lane })),
    );
    const kills = lanes.reduce((sum, lane) => sum + lane.kills, 0);
    expect(kills).toBe(LANES * KILLS_PER_LANE);
    console.info(`[reliability] crashes survived (seed ${seed}): ${JSON.stringify(lanes)}`);
  }, 180_000);
});
