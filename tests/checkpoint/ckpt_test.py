"""Checkpoints and restart (docs/RELIABILITY.md, "Checkpoints"), run by ctest
(label checkpoint).

usage: ckpt_test.py SCOPEDSM PROGRAM CASE NP

CASE is one of
  kill       an uninterrupted run gives the reference result; then a run is
             killed (SIGKILL) in the middle of an iteration at a random rank
             and iteration, restarted and killed again later, restarted
             again, and must finish with exactly the reference result
             (grid and registered private sums), each restart resuming at
             the expected checkpoint and iteration
  kill-checkpoint  the same with a rank killed once its checkpoint files
             are written (the rendezvous never completes) and with rank 0
             killed once the new manifest is written but not yet renamed:
             both must restart from the checkpoint before
  damaged    a complete checkpoint, damaged: a truncated data file, a
             flipped byte in a data file, in an index file and in the
             manifest, a missing manifest, and a restart with another
             process count; each must end the job non-zero with one
             ScopeDSM line naming the file
  skip-changed  the negative control: kill as above with
             SCOPEDSM_TEST_FAULT=checkpoint-skip-changed; prints "RESULT
             DIFFERS" (the test expects it) when the restart's result is not
             the reference's

SCOPEDSM_* variables of the environment (SCOPEDSM_NODE_SHARING, ...) reach
every run. Exit status 0 when the case holds."""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

N, ITERS, K = "96", "14", "3"


def run(scopedsm, np, program, args, env, restart=None, timeout=120):
    cmd = [scopedsm, "run", "-n", str(np), "--quiet"]
    if restart:
        cmd += ["--restart", restart]
    cmd += [program] + [str(a) for a in args]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=timeout,
                       check=False)
    return p, time.monotonic() - t0


def result_of(p):
    m = re.search(r"^result (\S+) private (\S+)", p.stdout, re.M)
    return (m.group(1), m.group(2)) if m else None


def restarted_from(p):
    m = re.search(r"^rank 0: restarted from checkpoint (\d+), resuming at iteration (\d+)", p.stdout, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


class Failure(Exception):
    pass


def expect(cond, what, p=None):
    if not cond:
        detail = f"\n--- stdout ---\n{p.stdout}\n--- stderr ---\n{p.stderr}" if p is not None else ""
        raise Failure(what + detail)


def killed_run(scopedsm, np, program, env, args, what):
    p, _ = run(scopedsm, np, program, [N, ITERS, K] + args, env)
    expect(p.returncode != 0 and result_of(p) is None, f"{what}: the run was not killed", p)
    return p


def restart_and_check(scopedsm, np, program, env, ckpt, want_seq, reference, what, extra=()):
    p, _ = run(scopedsm, np, program, [N, ITERS, K] + list(extra), env, restart=ckpt)
    got = restarted_from(p)
    if extra:  # killed again
        expect(p.returncode != 0, f"{what}: the restarted run was not killed", p)
    else:
        expect(p.returncode == 0, f"{what}: the restarted run failed", p)
    expect(got == (want_seq, want_seq * int(K)),
           f"{what}: restarted from {got}, expected checkpoint {want_seq} at iteration {want_seq * int(K)}", p)
    if not extra:
        res = result_of(p)
        if res != reference:
            print(f"RESULT DIFFERS: {what}: {res} after the restart, {reference} uninterrupted")
            raise Failure(f"{what}: wrong result")
        print(f"{what}: restarted from checkpoint {want_seq}, same result {res[0]} / {res[1]}")
    return p


def reference_run(scopedsm, np, program, env, work):
    ref_env = dict(env, SCOPEDSM_CHECKPOINT_DIR=os.path.join(work, "reference"))
    p, _ = run(scopedsm, np, program, [N, ITERS, K], ref_env)
    expect(p.returncode == 0 and result_of(p), "the uninterrupted run failed", p)
    return result_of(p)


def case_kill(scopedsm, np, program, env, work, rng):
    """Killed at iteration i1 (after at least one checkpoint), restarted,
    killed again at i2 (after the restart's first checkpoint), restarted
    again: the second restart continues incremental generations written on
    top of the first restart's."""
    reference = reference_run(scopedsm, np, program, env, work)
    iters, k = int(ITERS), int(K)
    ckpt = os.path.join(work, "mid")
    e = dict(env, SCOPEDSM_CHECKPOINT_DIR=ckpt)
    r1, i1 = rng.randrange(np), rng.randrange(k + 1, iters - k)
    killed_run(scopedsm, np, program, e, [r1, i1], f"kill rank {r1} in iteration {i1}")
    s1 = (i1 - 1) // k
    r2, i2 = rng.randrange(np), rng.randrange(s1 * k + k + 1, iters + 1)
    restart_and_check(scopedsm, np, program, e, ckpt, s1, reference,
                      f"kill rank {r1} in iteration {i1}, then rank {r2} in iteration {i2}", extra=(r2, i2))
    s2 = (i2 - 1) // k
    restart_and_check(scopedsm, np, program, e, ckpt, s2, reference,
                      f"kill rank {r1} in iteration {i1}, then rank {r2} in iteration {i2}")


def case_kill_checkpoint(scopedsm, np, program, env, work, rng):
    """Killed in the middle of checkpoint `seq`: a rank once its files are
    written (the rendezvous never completes), and rank 0 once the new
    manifest is written but not renamed. Both restart from seq - 1."""
    reference = reference_run(scopedsm, np, program, env, work)
    seq = rng.randrange(2, int(ITERS) // int(K) + 1)
    victim = rng.randrange(np)
    ckpt = os.path.join(work, "written")
    e = dict(env, SCOPEDSM_CHECKPOINT_DIR=ckpt, SCOPEDSM_TEST_CHECKPOINT_KILL=f"{victim}:{seq}:written")
    killed_run(scopedsm, np, program, e, [], f"kill rank {victim} in checkpoint {seq} (files written)")
    e.pop("SCOPEDSM_TEST_CHECKPOINT_KILL")
    restart_and_check(scopedsm, np, program, e, ckpt, seq - 1, reference,
                      f"kill rank {victim} in checkpoint {seq} (files written)")

    ckpt = os.path.join(work, "manifest")
    e = dict(env, SCOPEDSM_CHECKPOINT_DIR=ckpt, SCOPEDSM_TEST_CHECKPOINT_KILL=f"0:{seq}:manifest")
    killed_run(scopedsm, np, program, e, [], f"kill rank 0 in checkpoint {seq} (manifest written, not renamed)")
    expect(os.path.exists(os.path.join(ckpt, "manifest.tmp")), "no manifest.tmp after the kill at the rename")
    e.pop("SCOPEDSM_TEST_CHECKPOINT_KILL")
    restart_and_check(scopedsm, np, program, e, ckpt, seq - 1, reference,
                      f"kill rank 0 in checkpoint {seq} (manifest written, not renamed)")


def case_skip_changed(scopedsm, np, program, env, work, rng):
    env = dict(env, SCOPEDSM_TEST_FAULT="checkpoint-skip-changed")
    case_kill(scopedsm, np, program, env, work, rng)


def one_line(p, pattern, what, seconds):
    ours = [l for l in p.stderr.splitlines() if l.startswith("scopedsm:")]
    expect(p.returncode != 0, f"{what}: exit status 0", p)
    expect(len(ours) == 1, f"{what}: {len(ours)} ScopeDSM lines, not 1", p)
    expect(re.search(pattern, ours[0]), f"{what}: the line does not match {pattern!r}", p)
    expect(result_of(p) is None and "restarted from" not in p.stdout, f"{what}: the program ran on", p)
    print(f"{what}: refused in {seconds:.1f} s: {ours[0]}")


def case_damaged(scopedsm, np, program, env, work, rng):
    good = os.path.join(work, "good")
    p, _ = run(scopedsm, np, program, [N, ITERS, K], dict(env, SCOPEDSM_CHECKPOINT_DIR=good))
    expect(p.returncode == 0 and result_of(p), "the run that makes the checkpoint failed", p)
    with open(os.path.join(good, "manifest"), encoding="utf-8") as f:
        seq = int(re.search(r"^seq (\d+)", f.read(), re.M).group(1))
    gen = f"gen-{seq:06d}"
    last = np - 1

    def damaged(name, change):
        d = os.path.join(work, name)
        shutil.copytree(good, d)
        change(d)
        return d

    def truncate(path):
        size = os.path.getsize(path)
        expect(size > 4096, f"{path} has only {size} bytes")
        os.truncate(path, size // 2)

    def flip(path, at=None):
        with open(path, "r+b") as f:
            data = bytearray(f.read())
            i = len(data) // 2 if at is None else at
            data[i] ^= 0x20
            f.seek(0)
            f.write(data)

    cases = [
        ("truncated data file", lambda d: truncate(os.path.join(d, gen, f"rank-{last}.data")), np,
         rf"rank-{last}\.data is truncated"),
        ("flipped byte in a data file", lambda d: flip(os.path.join(d, gen, "rank-0.data")), np,
         r"rank-0\.data is damaged \(page \d+ at byte \d+: its checksum does not match\)"),
        ("flipped byte in an index file", lambda d: flip(os.path.join(d, gen, f"rank-{last}.index")), np,
         rf"rank-{last}\.index is damaged"),
        ("flipped byte in the manifest", lambda d: flip(os.path.join(d, "manifest"), 30), np,
         r"manifest is damaged or truncated"),
        ("missing manifest", lambda d: os.unlink(os.path.join(d, "manifest")), np,
         r"manifest is missing: no checkpoint was completed there"),
    ]
    other = 1 if np != 1 else 2
    cases.append(("another process count", lambda d: None, other,
                  rf"manifest was written by a job of {np} processes, and this job has {other}: restart with {np}"))
    for i, (what, change, procs, pattern) in enumerate(cases):
        d = damaged(f"case{i}", change)
        p, seconds = run(scopedsm, procs, program, [N, ITERS, K], env, restart=d, timeout=60)
        one_line(p, r"^scopedsm: rank \d+: scopedsm_init: cannot restart from .*" + pattern, what, seconds)


def main(argv):
    scopedsm, program, case, np = argv[1], argv[2], argv[3], int(argv[4])
    seed = int(os.environ.get("CKPT_SEED", str(int(time.time() * 1000) % 1000000)))
    print(f"seed {seed} (CKPT_SEED={seed} repeats this run)")
    rng = random.Random(seed)
    env = dict(os.environ)
    work = tempfile.mkdtemp(prefix="scopedsm-ckpt-")
    try:
        {"kill": case_kill, "kill-checkpoint": case_kill_checkpoint, "damaged": case_damaged,
         "skip-changed": case_skip_changed}[case](
            scopedsm, np, program, env, work, rng)
    except Failure as e:
        print(f"FAILED: {e}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"PASSED: {case} at {np} processes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
