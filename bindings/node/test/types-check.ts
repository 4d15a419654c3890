// SPDX-License-Identifier: MIT
// index.d.ts against what the runtime accepts and returns (issue 27: the
// allowlist object was a type error): compiled with `tsc --strict --noEmit`
// by the 'node types (tsc --strict)' test where tsc is installed.
import * as confine from 'confine';

export async function uses(): Promise<void> {
  const r = await confine.run(['npm', 'ci'], {
    workspace: '/w', timeout: 60000, denyRead: '/home/me/.ssh',
    network: { allow: ['registry.npmjs.org', '*.npmjs.org'], deny: ['evil.npmjs.org'], allowLocal: false },
  });
  const shown: string = r.rendering;
  const w = await confine.wrap(['true'], { network: 'off', writableRoots: ['/w/cache'] });
  const denied: boolean = w.denied(1, Buffer.from('x'));
  const line: string | null = confine.classifyRunnerFailure(w.rules, null, 'bwrap: x');
  const byDialect: boolean = confine.classifyDenial(w.dialect, 0, 'touch: cannot touch \'f\': Permission denied');
  const network = w.policy.network;
  if (typeof network === 'object') console.log(network.allow.length, network.allowLocal);
  try {
    await confine.bash('true', { timeout: 1000 });
  } catch (e) {
    if (e instanceof confine.ConfineError) console.log(e.code, e.option);
  }
  const staged = await confine.run(['make'], { workspace: '/w', stage: '/tmp/s' });
  if (staged.stage) {
    const changes: confine.StageChange[] = await staged.stage.changes;
    const text: string = await staged.stage.patch();
    const done: confine.StageApplied[] = await staged.stage.apply(changes.map((c) => c.path), { overwrite: false });
    await staged.stage.discard();
    console.log(text, done.map((d) => d.outcome));
  }
  const bashStaged = await confine.bash('make', { stage: '/tmp/s2' });
  if (bashStaged.stage) await new confine.Stage(bashStaged.stage.path).apply();
  console.log(shown, denied, line, byDialect);
}
