import { randomBytes } from 'crypto'
import * as fs from 'fs'
import * as path from 'path'
import { ConfigError, dataDir, SharedEnv } from './config'
import { Logger } from './logger'

export interface Secrets {
    /** Signs explorer session tokens. */
    jwtSecret: string
    /** 32-byte key (hex) under which wallet keys, bridge seeds and webhook secrets are encrypted at rest. */
    masterKey: string
    /** Bearer token of the bridge's webhook admin API. */
    bridgeAdminToken: string
}

const GENERATORS: Record<keyof Secrets, { env: keyof SharedEnv; make: () => string }> = {
    jwtSecret: { env: 'JWT_SECRET', make: () => randomBytes(48).toString('base64url') },
    masterKey: { env: 'MASTER_KEY', make: () => randomBytes(32).toString('hex') },
    bridgeAdminToken: { env: 'BRIDGE_ADMIN_TOKEN', make: () => randomBytes(32).toString('base64url') },
}

/**
 * The secrets a process uses, and only those: the api process reads JWT_SECRET, the platform
 * MASTER_KEY, the bridge MASTER_KEY and BRIDGE_ADMIN_TOKEN, so a process never holds a key it has
 * no use for. Secrets come from env. In production a missing one is a start-up error. In development it is
 * generated once into DATA_DIR/secrets.json (mode 0600) and reused, so restarts keep sessions valid
 * and encrypted keys readable; a warning says so, without printing the values.
 */
export function loadSecrets<K extends keyof Secrets>(env: SharedEnv, keys: readonly K[], log?: Logger): Pick<Secrets, K> {
    const missing = keys.filter((k) => !env[GENERATORS[k].env])
    if (missing.length > 0 && env.NODE_ENV === 'production') {
        throw new ConfigError(
            `Missing required secrets in production: ${missing.map((k) => GENERATORS[k].env).join(', ')}`
        )
    }
    const file = path.join(dataDir(env), 'secrets.json')
    let stored: Partial<Secrets> = {}
    if (missing.length > 0 && fs.existsSync(file)) {
        stored = JSON.parse(fs.readFileSync(file, 'utf8'))
    }
    let generated = false
    const result = {} as Pick<Secrets, K>
    for (const key of keys) {
        const fromEnv = env[GENERATORS[key].env] as string | undefined
        if (fromEnv) {
            result[key] = fromEnv
        } else if (stored[key]) {
            result[key] = stored[key]! as Secrets[K]
        } else {
            result[key] = GENERATORS[key].make() as Secrets[K]
            stored[key] = result[key]
            generated = true
        }
    }
    if (generated) {
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 })
    }
    if (missing.length > 0) {
        log?.warn(
            { file, variables: missing.map((k) => GENERATORS[k].env) },
            'development secrets in use (generated once and kept in the data directory); set these variables in production'
        )
    }
    return result
}

/** The variables that carry these secrets, e.g. `{ MASTER_KEY: '…' }`: what a launcher passes to a child process. */
export function secretVariables(secrets: Partial<Secrets>): Record<string, string> {
    const vars: Record<string, string> = {}
    for (const key of Object.keys(secrets) as (keyof Secrets)[]) vars[GENERATORS[key].env] = secrets[key]!
    return vars
}

/** Every secret's variable name. */
export const SECRET_VARIABLE_NAMES: readonly string[] = Object.values(GENERATORS).map((g) => g.env)
