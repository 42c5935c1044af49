import { expect } from 'chai';
import { defaultLogFormat, jsonLogger, prettyLogger } from './logger.js';

describe('logger formats', () => {
  it('json: one JSON object per line with level, time, msg and the fields', () => {
    const lines: string[] = [];
    jsonLogger({ write: (line) => lines.push(line) }).log('info', 'started', { url: 'http://127.0.0.1:9100' });
    expect(lines).to.have.length(1);
    expect(JSON.parse(lines[0]!)).to.include({ level: 'info', msg: 'started', url: 'http://127.0.0.1:9100' });
  });

  it("pretty: pino-pretty's readable lines, no colour codes unless asked, levels below the threshold dropped", () => {
    const out: string[] = [];
    const log = prettyLogger({ level: 'info', write: (text) => out.push(text) });
    log.log('debug', 'hidden');
    log.child({ plugin: 'search' }).log('warn', 'slow', { ms: 12 });
    expect(out).to.have.length(1);
    expect(out[0]).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: slow\n/);
    expect(out[0]).to.contain('plugin: "search"').and.contain('ms: 12');
    expect(out[0]).not.to.contain('\u001b[');
    expect(() => JSON.parse(out[0]!)).to.throw();
  });

  it('defaults to pretty only when stdout and stderr are both terminals', () => {
    const tty = { isTTY: true };
    const pipe = { isTTY: false };
    expect(defaultLogFormat({ stdout: tty, stderr: tty })).to.equal('pretty');
    expect(defaultLogFormat({ stdout: pipe, stderr: tty })).to.equal('json');
    expect(defaultLogFormat({ stdout: tty, stderr: pipe })).to.equal('json');
    expect(defaultLogFormat({ stdout: {}, stderr: {} })).to.equal('json');
  });
});
