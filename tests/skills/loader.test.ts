// SkillLoader: the shared corpus, the bundled skills, the format rules, precedence and layer 2.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SkillLoader, UnknownSkillError } from "../../src/skills/loader.js";
import { tempDir } from "../helpers/temp-dir.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const CORPUS = join(REPO, "..", "shared", "corpus", "skills");
const BUNDLED = join(REPO, "skills");

let temp: string;
beforeEach(async () => {
  temp = await tempDir("miniclaw-skills-");
});
afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function skill(root: string, folder: string, text: string): Promise<string> {
  const file = join(root, folder, "SKILL.md");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

function skillText(name: string, description: string, extra = "", body = "Do the thing."): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`;
}

async function loaded(dirs: string[]): Promise<{ loader: SkillLoader; warnings: string[] }> {
  const warnings: string[] = [];
  const loader = new SkillLoader({ dirs, onWarning: (message) => warnings.push(message) });
  await loader.load();
  return { loader, warnings };
}

async function allSkillFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name === "SKILL.md").map((e) => join(e.parentPath, e.name));
}

describe("SkillLoader on real skills", () => {
  // The corpus lies beside the repository (../shared), as it does in CI; a clone without it skips this test.
  it.skipIf(!existsSync(CORPUS))("loads every SKILL.md of the shared corpus without a crash, each either loaded or explained", async () => {
    expect(existsSync(CORPUS), `corpus expected at ${CORPUS}`).toBe(true);
    const { loader, warnings } = await loaded([CORPUS]);
    const files = await allSkillFiles(CORPUS);
    const loadedFiles = new Set(loader.list().map((s) => s.file));
    expect(loader.list().length).toBeGreaterThan(50);
    for (const file of files) {
      const explained = loadedFiles.has(file) || warnings.some((w) => w.startsWith(file));
      expect(explained, file).toBe(true);
    }
    const listing = loader.listing();
    for (const s of loader.list()) expect(listing).toContain(`- ${s.name}`);
    expect(listing.length).toBeLessThanOrEqual(8000);
  });

  it("loads the bundled skills with no warning, each with a useful body", async () => {
    const { loader, warnings } = await loaded([BUNDLED]);
    expect(warnings).toEqual([]);
    expect(loader.list().map((s) => s.name)).toEqual(["daily-briefing", "memory-hygiene", "repo-summary"]);
    for (const s of loader.list()) {
      expect(s.description.length).toBeGreaterThan(40);
      const body = await loader.body(s.name);
      expect(body.startsWith(`<skill name="${s.name}">`)).toBe(true);
      expect(body.length).toBeGreaterThan(1000);
    }
  });
});

describe("SkillLoader rules", () => {
  it("loads skills that break a rule, with one warning naming the file and the rule", async () => {
    const cases: Array<[folder: string, text: string, rule: RegExp]> = [
      ["Upper", skillText("Upper", "d"), /lowercase letters/],
      ["mismatch", skillText("other-name", "d"), /does not match its folder "mismatch"/],
      ["no-description", "---\nname: no-description\n---\nbody\n", /"description" is required/],
      ["long-description", skillText("long-description", "x".repeat(1100)), /longer than 1024/],
      ["n".repeat(70), skillText("n".repeat(70), "d"), /longer than 64/],
      ["bad-hyphen-", skillText("bad-hyphen-", "d"), /single hyphens/],
      ["bad-compat", skillText("bad-compat", "d", `compatibility: ${"c".repeat(600)}\n`), /"compatibility" is longer than 500/],
      ["bad-metadata", skillText("bad-metadata", "d", "metadata: just text\n"), /"metadata" must be a mapping/],
      ["no-name", "---\ndescription: d\n---\nbody\n", /"name" is required; using the folder name "no-name"/],
    ];
    const files = new Map<string, string>();
    for (const [folder, text] of cases) files.set(folder, await skill(temp, folder, text));
    const { loader, warnings } = await loaded([temp]);
    expect(loader.list()).toHaveLength(cases.length);
    for (const [folder, , rule] of cases) {
      const file = files.get(folder) ?? "?";
      expect(warnings.filter((w) => w.startsWith(file)), folder).toEqual([expect.stringMatching(rule)]);
    }
    expect(loader.get("no-name")?.description).toBe("d");
    expect(loader.get("other-name")?.dir).toBe(join(temp, "mismatch"));
  });

  it("keeps the optional fields and reads allowed-tools as a list", async () => {
    await skill(temp, "full", skillText("full", "d", "license: MIT\ncompatibility: Node 20\nmetadata:\n  author: me\nallowed-tools: read_file run_command\n"));
    const { loader, warnings } = await loaded([temp]);
    expect(warnings).toEqual([]);
    expect(loader.get("full")).toMatchObject({ license: "MIT", compatibility: "Node 20", metadata: { author: "me" }, allowedTools: ["read_file", "run_command"] });
  });

  it("skips files without frontmatter or with unreadable YAML, with a warning", async () => {
    const none = await skill(temp, "none", "# Just a heading\n");
    const broken = await skill(temp, "broken", "---\nname: [broken\ndescription: d\n---\nbody\n");
    await skill(temp, "fine", skillText("fine", "d"));
    const { loader, warnings } = await loaded([temp]);
    expect(loader.list().map((s) => s.name)).toEqual(["fine"]);
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^${broken}: skipped, its frontmatter cannot be parsed`)),
      expect.stringMatching(new RegExp(`^${none}: skipped, it has no frontmatter`)),
    ]);
  });

  it("skips a SKILL.md that is a FIFO or a link to a device, with a warning, instead of reading forever", async () => {
    const fifo = join(temp, "fifo", "SKILL.md");
    await mkdir(dirname(fifo), { recursive: true });
    execFileSync("mkfifo", [fifo]);
    const device = join(temp, "zero", "SKILL.md");
    await mkdir(dirname(device), { recursive: true });
    await symlink("/dev/zero", device);
    await skill(temp, "fine", skillText("fine", "d"));
    const { loader, warnings } = await loaded([temp]);
    expect(loader.list().map((s) => s.name)).toEqual(["fine"]);
    expect(warnings).toEqual([`${fifo}: skipped, it is not a regular file`, `${device}: skipped, it is not a regular file`]);
  });

  it("goes past a link that loops or points nowhere in a skills folder, loading the others", async () => {
    await symlink("loop", join(temp, "loop"));
    await symlink(join(temp, "missing"), join(temp, "dangling"));
    await skill(temp, "fine", skillText("fine", "d"));
    const { loader, warnings } = await loaded([temp]);
    expect(loader.list().map((s) => s.name)).toEqual(["fine"]);
    expect(warnings).toEqual([]);
  });

  it("walks a folder reached by a link once, however the links loop back to it", async () => {
    await skill(join(temp, "team"), "deploy", skillText("deploy", "d"));
    await mkdir(join(temp, "team", "nested"));
    await symlink("..", join(temp, "team", "nested", "up"));
    await symlink(join(temp, "team"), join(temp, "alias"));
    await symlink(temp, join(temp, "team", "root"));
    const { loader, warnings } = await loaded([temp]);
    expect(loader.list().map((s) => [s.name, s.file])).toEqual([["deploy", join(temp, "alias", "deploy", "SKILL.md")]]);
    // A duplicate name from a second path to the same folder would be warned about: none is.
    expect(warnings).toEqual([]);
  });

  it("reads a description with an unquoted colon line by line, with a warning", async () => {
    const file = await skill(temp, "colon", "---\nname: colon\ndescription: Use when: things happen\nmetadata: {\"a\":{\"b\":1}}\n---\nbody\n");
    const { loader, warnings } = await loaded([temp]);
    expect(loader.get("colon")).toMatchObject({ description: "Use when: things happen", metadata: { a: { b: 1 } } });
    expect(await loader.body("colon")).toBe('<skill name="colon">\nbody\n</skill>');
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^${file}: frontmatter is not valid YAML`))]);
  });

  describe("an hour later, when an unchanged SKILL.md is not read again", () => {
    // Files written now are "recent" (modified within two seconds) and always read; an hour on, they are remembered.
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 3_600_000);
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it("gives the same skills and warnings on every load, each load its own copy of the fields", async () => {
      await skill(temp, "colon", "---\nname: colon\ndescription: Use when: things happen\nmetadata: {\"tags\": [\"a\"]}\n---\nbody\n");
      const first = await loaded([temp]);
      (first.loader.get("colon")?.metadata as { tags: string[] }).tags.push("changed by a caller");
      const second = await loaded([temp]);
      expect(second.loader.get("colon")).toMatchObject({ description: "Use when: things happen", metadata: { tags: ["a"] } });
      expect(second.warnings).toEqual(first.warnings);
      expect(second.warnings).toHaveLength(1);
    });

    it("reads a SKILL.md again when only its change time moved (same size, modification time put back)", async () => {
      const file = await skill(temp, "edited", skillText("edited", "Version one."));
      // A whole second, so that putting it back restores the modification time exactly.
      const second = Math.floor(Date.now() / 1000) - 60;
      await utimes(file, second, second);
      expect((await loaded([temp])).loader.get("edited")?.description).toBe("Version one.");
      await writeFile(file, skillText("edited", "Version two."));
      await utimes(file, second, second);
      expect((await loaded([temp])).loader.get("edited")?.description).toBe("Version two.");
    });
  });

  it("never runs JavaScript frontmatter", async () => {
    const flag = "__miniclawSkillRan";
    await skill(temp, "evil", `---js\n{ name: (globalThis.${flag} = true, "evil"), description: "d" }\n---\nbody\n`);
    const { loader, warnings } = await loaded([temp]);
    expect((globalThis as Record<string, unknown>)[flag]).toBeUndefined();
    expect(loader.list()).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/not allowed/)]);
  });
});

describe("SkillLoader folders", () => {
  it("lets a workspace skill win over a bundled one of the same name", async () => {
    const bundled = join(temp, "bundled");
    const workspace = join(temp, "workspace-skills");
    await skill(bundled, "notes", skillText("notes", "bundled version", "", "BUNDLED BODY"));
    await skill(bundled, "only-bundled", skillText("only-bundled", "d"));
    await skill(workspace, "notes", skillText("notes", "my version", "", "MY BODY"));
    const { loader, warnings } = await loaded([bundled, workspace, join(temp, "missing")]);
    expect(warnings).toEqual([]);
    expect(loader.list().map((s) => s.name)).toEqual(["notes", "only-bundled"]);
    expect(loader.get("notes")?.description).toBe("my version");
    expect(await loader.body("notes")).toContain("MY BODY");
  });

  it("finds skills in nested collections but not SKILL.md files inside a skill", async () => {
    await skill(temp, "collection/deep/one", skillText("one", "d"));
    await skill(temp, "two", skillText("two", "d"));
    await skill(temp, "two/templates/inner", skillText("inner", "d"));
    const { loader } = await loaded([temp]);
    expect(loader.list().map((s) => s.name)).toEqual(["one", "two"]);
  });

  it("returns the body in skill tags with the skill's other files as absolute paths", async () => {
    await skill(temp, "tool", skillText("tool", "d", "", "# Tool\nRun scripts/run.sh."));
    await mkdir(join(temp, "tool", "scripts"), { recursive: true });
    await writeFile(join(temp, "tool", "scripts", "run.sh"), "echo hi\n");
    await writeFile(join(temp, "tool", "REFERENCE.md"), "ref\n");
    await writeFile(join(temp, "tool", ".hidden"), "x\n");
    const { loader } = await loaded([temp]);
    const body = await loader.body("tool");
    expect(body).toBe(
      [
        '<skill name="tool">',
        "# Tool\nRun scripts/run.sh.",
        "</skill>",
        "",
        `Relative paths in this skill are relative to its folder: ${join(temp, "tool")}`,
        "Its other files (open them with read_file when the instructions call for them):",
        `- ${join(temp, "tool", "REFERENCE.md")}`,
        `- ${join(temp, "tool", "scripts", "run.sh")}`,
      ].join("\n"),
    );
  });

  it("throws UnknownSkillError listing the available skills for an unknown name", async () => {
    await skill(temp, "b-skill", skillText("b-skill", "d"));
    await skill(temp, "a-skill", skillText("a-skill", "d"));
    const { loader } = await loaded([temp]);
    const error = await loader.body("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownSkillError);
    expect((error as Error).message).toBe('Unknown skill "nope". Available skills: a-skill, b-skill.');
  });
});

describe("SkillLoader listing", () => {
  it("lists one sorted line per skill", async () => {
    await skill(temp, "zeta", skillText("zeta", "Last one"));
    await skill(temp, "alpha", skillText("alpha", "First one"));
    const { loader } = await loaded([temp]);
    expect(loader.listing()).toBe("- alpha: First one\n- zeta: Last one");
  });

  it("shortens descriptions evenly over budget, keeps every skill, and warns once", async () => {
    for (let i = 0; i < 20; i++) await skill(temp, `skill-${String(i).padStart(2, "0")}`, skillText(`skill-${String(i).padStart(2, "0")}`, `${"word ".repeat(60)}end`));
    await skill(temp, "short", skillText("short", "Tiny."));
    const { loader, warnings } = await loaded([temp]);
    const listing = loader.listing(2000);
    expect(listing.length).toBeLessThanOrEqual(2000);
    const lines = listing.split("\n");
    expect(lines).toHaveLength(21);
    expect(lines).toContain("- short: Tiny.");
    const cut = lines.filter((l) => l.startsWith("- skill-"));
    expect(cut.every((l) => l.endsWith("…"))).toBe(true);
    expect(new Set(cut.map((l) => l.length)).size).toBe(1);
    loader.listing(2000);
    expect(warnings).toEqual([expect.stringMatching(/over its 2000-character budget: descriptions shortened to \d+ characters/)]);
  });

  it("keeps every name even when the names alone exceed the budget", async () => {
    for (const name of ["aaa", "bbb", "ccc"]) await skill(temp, name, skillText(name, "some description"));
    const { loader, warnings } = await loaded([temp]);
    expect(loader.listing(10)).toBe("- aaa\n- bbb\n- ccc");
    expect(warnings).toEqual([expect.stringMatching(/names alone exceed it/)]);
  });
});
