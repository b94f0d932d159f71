import pino from 'pino'

/**
 * Every field name under which a secret could ever reach a log line. pino replaces the value,
 * so a key or password passed to a log call by mistake is still never written.
 */
export const REDACTED_PATHS = [
    'password', 'user_pwd', 'newPassword', 'privateKey', 'priv_key', 'privKey', 'mnemonic', 'secret', 'seed',
    'token', 'accessToken', 'jwtSecret', 'masterKey', 'adminToken', 'apiKey',
    '*.password', '*.user_pwd', '*.newPassword', '*.privateKey', '*.priv_key', '*.privKey', '*.mnemonic',
    '*.secret', '*.seed', '*.token', '*.accessToken', '*.jwtSecret', '*.masterKey', '*.adminToken', '*.apiKey',
    'req.headers.authorization', 'req.headers["x-user-pwd"]', 'req.headers["x-api-key"]', 'req.headers.cookie',
    'headers.authorization', 'headers["x-user-pwd"]',
    // The wallet platform's secrets wherever a request's body or query might be logged whole.
    'req.body.user_pwd', 'req.body.priv_key', 'req.body.privateKey', 'req.body.mnemonic', 'req.query.user_pwd',
    'body.user_pwd', 'body.priv_key', 'body.privateKey', 'body.mnemonic', 'query.user_pwd',
    'passwordHash', 'resetToken', 'verificationCode', 'smtpUrl', 'SMTP_URL', 'seedBytes', 'hdKey',
    '*.passwordHash', '*.resetToken', '*.verificationCode', '*.smtpUrl', '*.SMTP_URL', '*.seedBytes', '*.hdKey',
    // Webhook signing secrets (one per subscription, several during a rotation).
    'secrets', '*.secrets', 'signingSecret', '*.signingSecret',
]

/**
 * Fields that hold a node's URL. A provider's URL often carries its API key (in the path, as
 * Infura's /v3/<key>, in the query, or as credentials), so these are written as their origin alone:
 * enough to tell which endpoint a line is about.
 */
const URL_FIELDS = ['rpcUrl', 'rpc']
const URL_PATHS = [...URL_FIELDS, ...URL_FIELDS.map((f) => `*.${f}`)]

/** A URL as a log line may show it: scheme, host and port; credentials, path and query become `…`. */
export function urlForLog(value: unknown): string {
    let url: URL
    try {
        url = new URL(String(value))
    } catch {
        return '[redacted]'
    }
    const hidden = url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== ''
    return `${url.protocol}//${url.host}${hidden ? '/…' : ''}`
}

export type Logger = pino.Logger

/** The process every line names (`service`): set once at start by runService or the launcher. */
let service: string | undefined

/** stdout, as pino's default; the launcher's readable mode reformats its own lines (setLogOutput). */
const stdout = pino.destination(1)
let output: (line: string) => void = (line) => void stdout.write(line)

/**
 * Every process's root logger. Lines are JSON: `level` (pino's number), `time` (ISO), `pid`,
 * `service`, `component`, `msg`, then the fields (docs/operations.md#logs). The service is a mixin,
 * not a binding, so that loggers made before it is known carry it too.
 */
export const rootLogger: Logger = pino({
    level: process.env.LOG_LEVEL || 'info',
    redact: {
        paths: [...REDACTED_PATHS, ...URL_PATHS],
        censor: (value, path) => (URL_FIELDS.includes(path[path.length - 1]) ? urlForLog(value) : '[redacted]'),
    },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => (service ? { service } : {}),
}, { write: (line: string) => output(line) })

export function createLogger(component: string): Logger {
    return rootLogger.child({ component })
}

/** Names this process on every line it logs from now on (`indexer`, `api`, `launcher`, ...). */
export function setLogService(name: string): void {
    service = name
}

/** Sends this process's lines elsewhere than stdout: the launcher prints its own readable on a terminal. */
export function setLogOutput(write: (line: string) => void): void {
    output = write
}
