// Preloaded with `node --require` (NODE_OPTIONS does not allow --cpu-prof): profiles the whole process with
// the inspector and writes CRS_CPU_PROFILE (a .cpuprofile file for Chrome DevTools) when it exits on SIGTERM.
const inspector = require('node:inspector');
const fs = require('node:fs');
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
let written = false;
function write() {
  if (written) return;
  written = true;
  session.post('Profiler.stop', (err, { profile }) => {
    if (!err) fs.writeFileSync(process.env.CRS_CPU_PROFILE, JSON.stringify(profile));
  });
}
process.prependListener('SIGTERM', write);
process.on('exit', write);
