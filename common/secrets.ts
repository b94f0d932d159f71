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
 * Secrets come from env. In production a missing one is a start-up error. In development it is
 * generated once into DATA_DIR/secrets.json (mode 0600) and reused, so restarts keep sessions valid
 * and encrypted keys readable; a warning says so, without printing the values.
 */
export function loadSecrets(env: SharedEnv, log?: Logger): Secrets {
    const missing = (Object.keys(GENERATORS) as (keyof Secrets)[]).filter((k) => !env[GENERATORS[k].env])
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
    const result = {} as Secrets
    for (const key of Object.keys(GENERATORS) as (keyof Secrets)[]) {
        const fromEnv = env[GENERATORS[key].env] as string | undefined
        if (fromEnv) {
            result[key] = fromEnv
        } else if (stored[key]) {
            result[key] = stored[key]!
        } else {
            result[key] = GENERATORS[key].make()
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
