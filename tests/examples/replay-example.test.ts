// The record-and-replay example: one wake-up recorded, replayed as it was with no difference, and a changed tool caught by name.
import { describe, expect, it } from "vitest";
import { recordAndReplay } from "../../examples/weekend-researcher/replay.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("the record-and-replay example", () => {
  it("passes with the same tool and names the changed description otherwise", async () => {
    const lines: string[] = [];
    const { pass, changed } = await recordAndReplay(await tempDir("miniclaw-cassette-"), (line) => lines.push(line));
    expect(pass).toEqual([]);
    expect(changed).toEqual(['request 1: request.body.tools[0].description: recorded "The weather forecast for a place.", now "The weather forecast for a place, by the hour."']);
    expect(lines[1]).toBe("replay, same tool: pass");
  });
});
