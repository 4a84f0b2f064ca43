import { apiserverFlags, parseCommandLine } from './options';

// The request and connection timeout flags: [argv, options read, errors].
test.each([
  [[], { requestTimeoutMs: 60_000, minRequestTimeoutSeconds: 1800, readHeaderTimeoutMs: 32_000, idleConnectionTimeoutMs: 90_000, http2MaxStreamsPerConnection: 0 }, []],
  [['--request-timeout=2s', '--min-request-timeout=0', '--read-header-timeout=500ms', '--idle-connection-timeout=1s', '--http2-max-streams-per-connection=0'], { requestTimeoutMs: 2000, minRequestTimeoutSeconds: 0, readHeaderTimeoutMs: 500, idleConnectionTimeoutMs: 1000, http2MaxStreamsPerConnection: 0 }, []],
  [['--request-timeout=-1s'], { requestTimeoutMs: -1000 }, ['--request-timeout can not be negative value']],
  [['--request-timeout=0s'], { requestTimeoutMs: 0 }, ['--request-timeout must be greater than 0: with 0 every request would time out as soon as it arrives']],
  [['--min-request-timeout=-5'], { minRequestTimeoutSeconds: -5 }, ['--min-request-timeout can not be negative value']],
  [['--read-header-timeout=0s', '--idle-connection-timeout=-1s'], {}, ['--read-header-timeout must be greater than 0, got 0s', '--idle-connection-timeout must be greater than 0, got -1s']],
  [['--http2-max-streams-per-connection=100'], {}, ['--http2-max-streams-per-connection=100: this server speaks HTTP/1.1 only, one request at a time on each connection, so there are no HTTP/2 streams to limit; leave it unset or 0']],
])('%j', (argv, options, errors) => {
  const cl = parseCommandLine(argv);
  expect(cl.options).toMatchObject(options);
  expect(cl.errors).toEqual(errors);
});

test('the connection timeouts are not in --help (they stand for Go constants of kube-apiserver); the request timeouts are', () => {
  const help = apiserverFlags().usage();
  expect(help).not.toContain('--read-header-timeout');
  expect(help).not.toContain('--idle-connection-timeout');
  expect(help).toMatch(/--request-timeout duration\s+An optional field indicating the duration a handler must keep a request open/);
  expect(help).toMatch(/--min-request-timeout int\s+An optional field indicating the minimum number of seconds/);
  expect(help).toContain('--http2-max-streams-per-connection int');
});
