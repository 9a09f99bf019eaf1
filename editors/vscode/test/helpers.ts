// Test helpers: the real ctxd binary (CTXD_BIN, set by editors/vscode_test.go,
// else built here with go build) and real git repositories in temp dirs.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

let built: string | undefined;

/** ctxdBinary returns the daemon binary under test. */
export function ctxdBinary(): string {
  const fromEnv = process.env.CTXD_BIN;
  if (fromEnv) {
    return fromEnv;
  }
  if (!built) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxd-vscode-bin-"));
    built = path.join(dir, "ctxd");
    const repo = path.resolve(__dirname, "..", "..", "..", "..");
    execFileSync("go", ["build", "-o", built, "./cmd/ctxd"], { cwd: repo, stdio: "inherit" });
  }
  return built;
}

/** slowRoot is a large source tree whose cold gather takes long enough to cancel. */
export function slowRoot(): string {
  const fromEnv = process.env.CTXD_SLOW_ROOT;
  if (fromEnv) {
    return fromEnv;
  }
  const goroot = execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
  return path.join(goroot, "src");
}

const made: string[] = [];
process.on("exit", () => {
  for (const dir of made) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** tempDir makes a directory removed when the process exits. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** gitRepo writes files into a new directory and commits them with the git CLI. */
export function gitRepo(files: Record<string, string>): string {
  const dir = fs.realpathSync(tempDir("ctxd-vscode-repo-"));
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(dir, ...name.split("/"));
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "initial commit"],
  ]) {
    execFileSync("git", args, { cwd: dir, env, stdio: "pipe" });
  }
  return dir;
}

/** daemonEnv is the environment of a daemon under test: no user config, state in a temp dir. */
export function daemonEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CTXD_CONFIG: path.join(tempDir("ctxd-vscode-cfg-"), "none.toml"),
    CTXD_STATE_DIR: tempDir("ctxd-vscode-state-"),
  };
}

/** cartGo is the cart package, the one the Neovim tests use (editors/testdata/cart.go). */
const cartGo = fs.readFileSync(path.resolve(__dirname, "..", "..", "..", "testdata", "cart.go"), "utf8");

function bigGo(): string {
  let s = "package cart\n\n// Big holds many functions, so a small budget must cut it.\n";
  for (let i = 0; i < 400; i++) {
    s += `\n// Discount${i} applies discount rule ${i} to a price.\nfunc Discount${i}(price int) int {\n\tif price > ${i} {\n\t\treturn price - ${i % 7}\n\t}\n\treturn price\n}\n`;
  }
  return s;
}

/** sampleRepo is a small Go module with one large file. */
export const sampleRepo: Record<string, string> = {
  "go.mod": "module example.com/shop\n\ngo 1.22\n",
  "cart/cart.go": cartGo,
  "cart/cart_test.go":
    'package cart\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal("empty cart")\n\t}\n}\n',
  "cart/discounts.go": bigGo(),
  "README.md": "# shop\n\nA tiny shop.\n",
};
