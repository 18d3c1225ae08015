import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attachMentions } from "../../src/cli/mentions.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { readFileTool } from "../../src/tools/files.js";
import { MAX_IMAGE_BYTES } from "../../src/tools/media.js";
import { buildToolContext } from "../helpers/tool-context.js";
import { scriptedModelPerTest, TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";
import { gatedRun } from "./gated-run.js";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("\0\0\0\rIHDR-a-tiny-picture")]);
const PDF = Buffer.from("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n");
const scripted = scriptedModelPerTest();

describe("images and documents", () => {
  it("read_file returns an image block for a PNG and a document block for a PDF", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "shot.png"), PNG);
    writeFileSync(join(context.cwd, "paper.pdf"), PDF);
    const readFile = readFileTool;
    expect(await gatedRun(readFile, { path: "shot.png" }, context)).toEqual([{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") } }]);
    expect(await gatedRun(readFile, { path: "paper.pdf" }, context)).toEqual([{ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF.toString("base64") }, title: "paper.pdf" }]);
  });

  it("read_file refuses an image past the size limit in one line the model can act on", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "huge.png"), Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES)]));
    const error = await Promise.resolve(gatedRun(readFileTool, { path: "huge.png" }, context)).then(() => null, (e: unknown) => e);
    expect((error as Error).message).toMatch(/^huge\.png is 3\.8 MB, over the 3\.75 MB an image may have here; make it smaller/);
  });

  it("sends the image read_file returns to the model, and a library user's content blocks as the message, kept in the session", async () => {
    const m = await scripted([
      { match: { userText: "look" }, reply: { toolUses: [{ name: "read_file", input: { path: "shot.png" } }] } },
      { match: { toolResult: { name: "read_file" } }, reply: "a tiny picture" },
      { reply: "a paper" },
    ]);
    const ws = await tempWorkspace();
    writeFileSync(join(ws, "shot.png"), PNG);
    const options = turnOptions(m, ws, [], { tools: [readFileTool] });
    expect((await runAgentTurn("k", "look at shot.png", TEST_AGENT, options)).text).toBe("a tiny picture");
    const sent = JSON.stringify(m.requests[1]!.body.messages!.at(-1));
    expect(sent).toContain('"type":"image"');
    const document = { type: "document" as const, source: { type: "base64" as const, media_type: "application/pdf" as const, data: PDF.toString("base64") } };
    const result = await runAgentTurn("k", [document, { type: "text", text: "what is this?" }], TEST_AGENT, options);
    expect(result.text).toBe("a paper");
    const content = m.requests[2]!.body.messages!.at(-1)!.content as Array<{ type: string; text?: string }>;
    expect(content[0]).toEqual(document);
    expect(content[1]).toMatchObject({ type: "text", text: "what is this?" });
    // The next turn sends them again from the session.
    await runAgentTurn("k", "and now?", TEST_AGENT, options);
    expect(JSON.stringify(m.requests[3]!.body.messages)).toContain('"type":"document"');
  });

  it("@path of an image or a PDF in a REPL message attaches it as a block, with one line each", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "shot.png"), PNG);
    writeFileSync(join(context.cwd, "paper.pdf"), PDF);
    const attached = await attachMentions("compare @shot.png with @paper.pdf", { cwd: context.cwd, redact: (t) => t });
    expect(attached.lines).toEqual(["attached @shot.png (an image, 1 KB)", "attached @paper.pdf (a PDF, 1 KB)"]);
    expect(attached.blocks.map((b) => b.type)).toEqual(["image", "document"]);
    expect(attached.context).toBeUndefined();
  });
});
