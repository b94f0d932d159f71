import { Secrets, SECRET_VARIABLE_NAMES, secretVariables } from '../common/secrets'
import { LauncherEnv } from './config'

/** The processes `npm start` runs, and what each is given. */
export interface ServiceSpec {
    name: string
    /** Compiled entry point, relative to lib/. Services not built yet are skipped. */
    entry: string
    /** The secrets this process uses: only these reach its environment. */
    secrets: readonly (keyof Secrets)[]
    urls: (env: LauncherEnv) => string[]
    /** Options of its Node process, before the entry point. */
    nodeOptions?: readonly string[]
}

/**
 * The indexer's Node options. A backfill keeps up to two batches of rows alive and drops one at
 * every commit; without a heap limit under 2 GB, V8 lets the heap grow to four times what stays
 * alive before it collects, which took a backfill with call trees past 1 GiB. Under a 1.5 GB limit
 * it collects at about twice (docs/indexer.md#memory). package.json and docker-compose.yml pass
 * the same.
 */
export const INDEXER_NODE_OPTIONS: readonly string[] = ['--max-old-space-size=1536']

export const SERVICES: readonly ServiceSpec[] = [
    { name: 'indexer', entry: 'indexer/main.js', nodeOptions: INDEXER_NODE_OPTIONS, secrets: [], urls: (env) => [`Indexer readiness        http://localhost:${env.INDEXER_HEALTH_PORT}/ready`] },
    { name: 'graphql', entry: 'indexer/graphql.js', secrets: [], urls: (env) => [`GraphQL (analysts)       http://localhost:${env.GRAPHQL_PORT}/graphql`, `GraphQL readiness        http://localhost:${env.GRAPHQL_HEALTH_PORT}/ready`] },
    {
        name: 'api',
        entry: 'api/main.js',
        secrets: ['jwtSecret'],
        urls: (env) => [
            `Explorer services API    http://localhost:${env.EXPLORER_PORT}/api`,
            `Chain data API (v2)      http://localhost:${env.EXPLORER_PORT}/api/v2`,
        ],
    },
    {
        name: 'platform',
        entry: 'api/platform/main.js',
        secrets: ['masterKey'],
        urls: (env) => [`Wallet platform API      http://localhost:${env.PLATFORM_PORT}`],
    },
    {
        name: 'bridge',
        entry: 'bridge/main.js',
        secrets: ['masterKey', 'bridgeAdminToken'],
        urls: (env) => [`Bridge API               http://localhost:${env.BRIDGE_PORT}/api`, `Bridge WebSocket         ws://localhost:${env.BRIDGE_PORT}/ws`],
    },
]

/**
 * A service's environment: the common one without any secret (not even one the operator exported
 * to the launcher), plus the secrets this service uses.
 */
export function serviceEnv(service: ServiceSpec, common: NodeJS.ProcessEnv, secrets: Secrets): NodeJS.ProcessEnv {
    const env = { ...common }
    for (const name of SECRET_VARIABLE_NAMES) delete env[name]
    const own: Partial<Secrets> = {}
    for (const key of service.secrets) own[key] = secrets[key]
    return { ...env, ...secretVariables(own) }
}
