// Preloaded with `node --require` (NODE_OPTIONS does not allow --cpu-prof): profiles the whole process with
// the inspector and writes CRS_CPU_PROFILE (a .cpuprofile file for Chrome DevTools) when it exits on SIGTERM.
// A CRS_CPU_PROFILE that ends in `/` names a directory: each process writes `<service>-<pid>.cpuprofile`
// there (the service from its `services/<name>/` main), so one load can profile every process at once.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
function target() {
  const out = process.env.CRS_CPU_PROFILE;
  if (!out.endsWith('/')) return out;
  const service =
    /services\/([^/]+)\//.exec(process.argv[1] ?? '')?.[1] ?? path.basename(process.argv[1] ?? 'node');
  fs.mkdirSync(out, { recursive: true });
  return path.join(out, `${service}-${process.pid}.cpuprofile`);
}
let written = false;
function write() {
  if (written) return;
  written = true;
  session.post('Profiler.stop', (err, { profile }) => {
    if (!err) fs.writeFileSync(target(), JSON.stringify(profile));
  });
}
process.prependListener('SIGTERM', write);
process.on('exit', write);
