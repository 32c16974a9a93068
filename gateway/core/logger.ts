/**
 * The process logger: pino writing one JSON object per line to stdout (asynchronously), or with `log.format: pretty`
 * coloured single lines for a terminal through pino-pretty (in-process, no worker thread).
 */
import pino from 'pino';
import pretty from 'pino-pretty';

/** What the logger needs from the config. */
export interface LogSettings {
  level: string;
  format: 'json' | 'pretty';
}

/**
 * stdout, written asynchronously: under load the lines queued while a write is in flight go out together instead of
 * one blocking write each. pino flushes what is left on exit.
 */
export function jsonDestination(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

/** A logger for `svc` ("gateway", "start") with the config's level and format. */
export function createLogger(settings: LogSettings, svc: string): pino.Logger {
  const options = { level: settings.level, base: { svc } };
  if (settings.format === 'pretty') {
    return pino(
      options,
      pretty({ colorize: process.stdout.isTTY === true, sync: true, ignore: 'pid,hostname' }),
    );
  }
  return pino(options, jsonDestination());
}

/** The logger for start-up lines (URLs, generated token): always at least `info`, as they were always printed. */
export function startupLogger(logger: pino.Logger): pino.Logger {
  return logger.child({}, { level: 'info' });
}

/**
 * A start-up failure as one JSON line on stdout, the log stream (a bad config names file and field in `msg`, one
 * line per problem in `problems`), written synchronously so it is out before the process exits. The caller also
 * writes the plain text to stderr for the person at the terminal.
 */
export function logStartFailure(svc: string, message: string): void {
  const lines = message.split('\n');
  const logger = pino({ base: { svc } }, pino.destination({ dest: 1, sync: true }));
  logger.fatal(lines.length > 1 ? { problems: lines } : {}, message);
}
