// Commands of the kind coding agents send, for the gate's mixed corpus: long pipelines, build and test runs, multi-line scripts and heredocs.

/** A file an agent writes in one command: a heredoc of about forty lines of code. */
const HEREDOC_FILE = [
  "cat > src/cache.ts <<'EOF'",
  "// A small LRU cache.",
  "export class LruCache<K, V> {",
  "  private readonly entries = new Map<K, V>();",
  "  constructor(private readonly capacity: number) {}",
  ...Array.from({ length: 30 }, (_, i) => `  method${i}(key: K): V | undefined { const v = this.entries.get(key); if (v !== undefined) { this.entries.delete(key); this.entries.set(key, v); } return v; }`),
  "}",
  "EOF",
].join("\n");

/** A shell script an agent runs inline: a loop, conditionals, substitutions. */
const INLINE_SCRIPT = [
  "set -euo pipefail",
  "for f in $(git ls-files '*.ts'); do",
  "  lines=$(wc -l < \"$f\")",
  "  if [ \"$lines\" -gt 400 ]; then",
  "    echo \"$f: $lines lines\"",
  "  fi",
  "done | sort -t: -k2 -rn | head -20",
].join("\n");

/** Commands that read, search and inspect: what most rounds of a coding turn run. */
const READS = [
  "git log --pretty=format:'%h %ad %an %s' --date=short -n 50 -- src/loop src/tools | grep -v Merge | head -40",
  "git diff --stat origin/main...HEAD -- . ':(exclude)package-lock.json'",
  "git log -S 'checkCommandSafety' --oneline --all -- src | head",
  "git show HEAD~2:src/loop/run-turn.ts | sed -n '1,80p'",
  "git for-each-ref --sort=-committerdate --format='%(refname:short) %(committerdate:relative)' refs/heads | head -15",
  "rg -n --no-heading -g '!node_modules' -g '!dist' -e 'TODO' -e 'FIXME' -e 'XXX' . | cut -c1-200 | head -100",
  "rg -n 'export (async )?function \\w+' src --type ts -o | awk -F: '{print $1}' | sort | uniq -c | sort -rn | head -20",
  "rg --json -n 'spawn\\(' src | jq -r 'select(.type == \"match\") | \"\\(.data.path.text):\\(.data.line_number)\"' | head",
  "find . -path ./node_modules -prune -o -name '*.ts' -type f -print | xargs wc -l | sort -n | tail -15",
  "find src tests -name '*.ts' -newer package.json -not -name '*.d.ts' | head -50",
  "grep -rn --include='*.ts' -E 'import .* from \"\\.\\./\\.\\./' src | wc -l",
  "grep -rhoE 'from \"[^\"]+\"' src | sort | uniq -c | sort -rn | head -30",
  "cat package.json | jq '{name, version, deps: (.dependencies | keys), dev: (.devDependencies | keys | length)}'",
  "jq -r '.rows[] | [.measurement, .miniclaw, .ratio] | @tsv' bench/results.json | column -t -s $'\\t'",
  "awk -F'\\t' 'NR > 1 && $4 > 1.2 { printf \"%s %s\\n\", $1, $4 }' results.tsv | sort -k2 -rn",
  "sed -n '/^## Targets/,/^## /p' README.md | head -40",
  "head -c 2000 dist/index.js | tr ';' '\\n' | head -30",
  "ls -la --time-style=long-iso src/loop src/tools | sort -k6,7 | tail -20",
  "du -ah dist | sort -rh | head -20",
  "wc -c dist/cli-bundle/*.js | sort -n | tail -5",
  "diff <(git show HEAD:src/index.ts) src/index.ts",
  "comm -23 <(rg -l defineTool src | sort) <(rg -l defineTool tests | sed 's/^tests/src/; s/\\.test\\.ts$/.ts/' | sort)",
  "echo \"$(git rev-parse --short HEAD) on $(git branch --show-current), $(git status --porcelain | wc -l) files changed\"",
  "cat -n src/permissions/safety.ts | sed -n '40,90p'",
  "tail -n 200 logs/app.log | grep -E 'ERROR|WARN' | awk '{print $3}' | sort | uniq -c",
  "ps -eo pid,ppid,rss,etime,cmd --sort=-rss | head -15",
  "ls ~/.cache | head",
  "node -p \"require('./package.json').version\"",
];

/** Commands that build, test, install, write or reach the network: they must be asked about. */
const ACTIONS = [
  "npm test -- --reporter=dot 2>&1 | tail -40",
  "npx vitest run tests/loop/run-turn.test.ts -t 'answers every tool_use' 2>&1 | tail -30",
  "npx tsc -b --pretty false 2>&1 | head -50",
  "npm run build && node bin/miniclaw.js --help",
  "npm ci --no-audit --no-fund --loglevel=error",
  "pnpm install --frozen-lockfile && pnpm -r build",
  "yarn workspace @app/web add react-query@5",
  "cargo build --release 2>&1 | grep -E '^(warning|error)' | sort | uniq -c",
  "cargo test --workspace -- --nocapture --test-threads=1",
  "go test ./... -run TestParse -count=1 -v 2>&1 | tail -50",
  "go build -o bin/server ./cmd/server && ./bin/server --help",
  "python -m pytest tests/unit -x -q --maxfail=3 -k 'not slow'",
  "python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt",
  "make -j4 all 2>&1 | tail -20",
  "docker compose up -d db && docker compose logs --tail=50 db",
  "docker build -t app:dev . && docker run --rm app:dev npm test",
  "curl -sS -H 'Accept: application/json' https://api.github.com/repos/nodejs/node/releases/latest | jq -r .tag_name",
  "git add -A && git commit -m 'Fix the parser on long heredocs' && git push origin HEAD",
  "git checkout -b fix/gate-speed && git rebase -i HEAD~3",
  "git stash push -m wip -- src/loop && git pull --rebase && git stash pop",
  "sed -i 's/DEFAULT_MAX_ITERATIONS = 20/DEFAULT_MAX_ITERATIONS = 30/' src/loop/options.ts",
  "perl -pi -e 's/\\bfoo\\b/bar/g' $(rg -l foo src)",
  "find . -name '*.orig' -delete && git clean -n",
  "mkdir -p src/cache && mv src/lru.ts src/cache/lru.ts",
  "rm -rf node_modules dist && npm install",
  "echo 'export * from \"./cache.js\";' >> src/index.ts",
  "printf '%s\\n' '{\"compilerOptions\": {\"strict\": true}}' > tsconfig.strict.json",
  "node -e \"const fs=require('fs');const p=JSON.parse(fs.readFileSync('package.json'));p.version='0.2.0';fs.writeFileSync('package.json',JSON.stringify(p,null,2))\"",
  "python3 - <<'PY'\nimport json, pathlib\nfor p in pathlib.Path('src').rglob('*.json'):\n    json.loads(p.read_text())\nprint('ok')\nPY",
  "timeout 60 npm run soak",
  "PGPASSWORD=x psql -h 127.0.0.1 -U postgres -d test -c 'select count(*) from miniclaw.sessions'",
  "kill -9 $(lsof -t -i :3000)",
  "chmod +x scripts/*.sh && ./scripts/release.sh --dry-run",
  "tar -czf backup-$(date +%F).tgz src tests && ls -la backup-*.tgz",
  "ssh deploy@prod 'cd /srv/app && git pull && systemctl restart app'",
  "gh pr create --title 'Gate: faster classification' --body-file /tmp/body.md",
];

/** Long commands, where a parser spends the most: a heredoc file, an inline script, a long chain and a long quoted argument. */
const LONG = [
  HEREDOC_FILE,
  INLINE_SCRIPT,
  Array.from({ length: 8 }, (_, i) => `test -f src/part${i}.ts && wc -l src/part${i}.ts`).join(" && "),
  Array.from({ length: 6 }, (_, i) => `grep -c 'case ${i}' src/file${i}.ts`).join("; "),
  `git commit -m '${"Describe the change in a long message that explains why. ".repeat(8)}'`,
  `echo "${Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ")}" | wc -w`,
  `rg -n ${Array.from({ length: 8 }, (_, i) => `-e 'pattern${i}\\(\\w+\\)'`).join(" ")} src`,
];

/** Every command of this file, once. */
export const AGENT_COMMANDS: readonly string[] = [...READS, ...ACTIONS, ...LONG];
