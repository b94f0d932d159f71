import { LogLevel, LogRecord, setLogLevelCallback, setRootSink } from '@subsquid/logger'
import { LEVELS } from '@subsquid/logger/lib/level'
import { toJSON } from '@subsquid/util-internal-json'
import { createLogger, Logger, rootLogger } from './logger'

/** pino's method for each of Subsquid's levels (LogLevel.TRACE = 0 ... FATAL = 5). */
const PINO_METHODS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const

/** Above FATAL: Subsquid writes a record only at or above its namespace's level, so nothing passes. */
const SILENT = 6 as LogLevel

/**
 * Subsquid's RPC and HTTP clients: the processor's (`sqd:processor:rpc`), and the ones ours make
 * (`sqd:rpc-client`, `sqd:http-client`). Kept at info when LOG_LEVEL is debug or trace.
 */
const RPC_TRAFFIC = '*:rpc,*:rpc-client,*:http-client'

/** Fields every line already has: a Subsquid record's own field of one of these names goes under `sqd` instead. */
const OWN_FIELDS = new Set(['pid', 'service', 'component', 'sqd'])

/**
 * Sends what Subsquid's packages log (the processor, its RPC client, typeorm-store, the GraphQL
 * server) through our pino logger, so a process writes one format: `component` is Subsquid's
 * namespace (`sqd:processor`, ...), `err` is serialized as ours, the redaction applies, and the
 * record's other fields are kept as Subsquid renders them (hex bytes, bigint as text). Without it,
 * Subsquid writes its own JSON (epoch `time`, `ns`) to stderr, or its pretty format on a terminal.
 *
 * Levels: every namespace is at LOG_LEVEL, but the RPC and HTTP clients' traffic is at info at most; a
 * namespace named in Subsquid's own SQD_TRACE ... SQD_FATAL (e.g. `SQD_DEBUG=sqd:processor:rpc`)
 * takes that level instead, up or down, as Subsquid's documentation has it. LOG_LEVEL=silent
 * silences all of them.
 * Call it once at process start, before anything of Subsquid's logs.
 */
export function routeSubsquidLogs(): void {
    const level = rootLogger.level
    if (level === 'silent') {
        setLogLevelCallback(() => SILENT)
    } else {
        // The catch-all `*` is the least specific pattern, so any namespace SQD_* names wins over it.
        const ours = LogLevel[level.toUpperCase() as keyof typeof LogLevel]
        const patterns = new Map<LogLevel, string>([[ours, '*']])
        // At debug the RPC clients write every request and every response whole (a block with all its
        // transactions per line), far more than the rest of the log in a backfill. These patterns are
        // more specific than `*` and no more than a namespace SQD_DEBUG names: info unless asked for.
        if (ours < LogLevel.INFO) patterns.set(LogLevel.INFO, RPC_TRAFFIC)
        for (const [at, pattern] of patterns) LEVELS.configure(at, [process.env[`SQD_${LogLevel[at]}`], pattern].filter(Boolean).join(','))
    }
    const loggers = new Map<string, Logger>()
    const loggerOf = (ns: string): Logger => {
        let log = loggers.get(ns)
        if (!log) {
            // Subsquid has filtered by its namespace's level already (SQD_* may ask for more than LOG_LEVEL).
            log = createLogger(ns || 'sqd').child({}, { level: 'trace' })
            loggers.set(ns, log)
        }
        return log
    }
    setRootSink((record: LogRecord) => {
        const { time: _time, level, ns, msg, err, ...data } = record as LogRecord & Record<string, unknown>
        const fields: Record<string, unknown> = {}
        const clashing: Record<string, unknown> = {}
        for (const [key, value] of Object.entries(toJSON(data) as Record<string, unknown>)) {
            if (OWN_FIELDS.has(key)) clashing[key] = value
            else fields[key] = value
        }
        if (Object.keys(clashing).length) fields.sqd = clashing
        if (err !== undefined) fields.err = err
        // Every line has a `msg`: Subsquid's records may have none (`{ hotUpdate }`), pino's then take the error's.
        loggerOf(ns)[PINO_METHODS[level] ?? 'info'](fields, msg ?? (err as Error | undefined)?.message ?? '')
    })
}
