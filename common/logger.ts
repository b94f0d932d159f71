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

export type Logger = pino.Logger

export const rootLogger: Logger = pino({
    level: process.env.LOG_LEVEL || 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
})

export function createLogger(component: string): Logger {
    return rootLogger.child({ component })
}
