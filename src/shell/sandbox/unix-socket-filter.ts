// The seccomp program that stops a sandboxed command from opening Unix sockets (and io_uring, which could open them unseen).
// Neither a read-only mount nor a network namespace stops connect() on a visible socket file (docker, D-Bus, ssh-agent);
// socketpair() stays allowed: pipes between a program's own processes are built on it and reach no one else.

/** classic BPF opcodes (linux/filter.h), seccomp returns, and offsets in struct seccomp_data (args[0]'s low half on little-endian). */
const [LD_W_ABS, JEQ_K, JGE_K, RET_K] = [0x20, 0x15, 0x35, 0x06];
const [RET_ALLOW, RET_EPERM, AF_UNIX] = [0x7fff0000, 0x00050000 | 1, 1];
const [NR, ARCH, ARG0_LOW] = [0, 4, 16];

/** The syscall numbers that matter, for a native ABI and the 32-bit one the same kernel also accepts. */
interface AbiNumbers {
  arch: number;
  socket: number;
  /** socketcall(2) multiplexes every socket call behind a pointer: denied whole where it exists. */
  socketcall?: number;
  ioUringSetup: number;
  /** x32 shares x86_64's arch value and sets this bit in nr: its calls are denied whole. */
  denyFromNr?: number;
}

/** Per host architecture (`process.arch`): the native ABI first, then its 32-bit compatibility ABI. */
const ABIS: Partial<Record<string, [AbiNumbers, AbiNumbers]>> = {
  x64: [{ arch: 0xc000003e, socket: 41, ioUringSetup: 425, denyFromNr: 0x40000000 }, { arch: 0x40000003, socket: 359, socketcall: 102, ioUringSetup: 425 }],
  arm64: [{ arch: 0xc00000b7, socket: 198, ioUringSetup: 425 }, { arch: 0x40000028, socket: 281, ioUringSetup: 425 }],
};

type Step = { op: number; k: number; yes?: string; no?: string } | { label: string };

/** The checks for one ABI: the accumulator holds the arch on entry; a call of another arch falls through to `next`. */
function abiSteps(abi: AbiNumbers, next: string): Step[] {
  const steps: Step[] = [{ op: JEQ_K, k: abi.arch, no: next }, { op: LD_W_ABS, k: NR }];
  if (abi.denyFromNr !== undefined) steps.push({ op: JGE_K, k: abi.denyFromNr, yes: "deny" });
  if (abi.socketcall !== undefined) steps.push({ op: JEQ_K, k: abi.socketcall, yes: "deny" });
  steps.push({ op: JEQ_K, k: abi.ioUringSetup, yes: "deny" }, { op: JEQ_K, k: abi.socket, yes: "family" }, { op: RET_K, k: RET_ALLOW });
  return steps;
}

/** The filter as bwrap's `--seccomp FD` reads it (struct sock_filter[]), or null without numbers for this architecture. */
export function unixSocketFilter(arch: string = process.arch): Uint8Array | null {
  const abis = ABIS[arch];
  if (abis === undefined) return null;
  const steps: Step[] = [
    { op: LD_W_ABS, k: ARCH },
    ...abiSteps(abis[0], "compat"),
    { label: "compat" },
    ...abiSteps(abis[1], "allow"),
    { label: "family" },
    { op: LD_W_ABS, k: ARG0_LOW },
    { op: JEQ_K, k: AF_UNIX, yes: "deny" },
    { label: "allow" },
    { op: RET_K, k: RET_ALLOW },
    { label: "deny" },
    { op: RET_K, k: RET_EPERM },
  ];
  return assemble(steps);
}

/** Resolves labels to the relative jumps of classic BPF (instructions skipped after this one) and packs the program. */
function assemble(steps: Step[]): Uint8Array {
  const at = new Map<string, number>();
  const instructions: Array<{ op: number; k: number; yes?: string; no?: string }> = [];
  for (const step of steps) {
    if ("label" in step) at.set(step.label, instructions.length);
    else instructions.push(step);
  }
  const out = Buffer.alloc(instructions.length * 8);
  instructions.forEach((ins, i) => {
    const jump = (label: string | undefined): number => (label === undefined ? 0 : (at.get(label) ?? Number.NaN) - i - 1);
    out.writeUInt16LE(ins.op, i * 8);
    out.writeUInt8(jump(ins.yes), i * 8 + 2);
    out.writeUInt8(jump(ins.no), i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}
