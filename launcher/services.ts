import { Secrets, SECRET_VARIABLE_NAMES, secretVariables } from '../common/secrets'
import { LauncherEnv } from './config'

/** The processes `npm start` runs, and what each is given. */
export interface ServiceSpec {
    name: string
    /** Compiled entry point, relative to lib/. Services not built yet are skipped. */
    entry: string
    /** The secrets this process uses: only these reach its environment. */
    secrets: readonly (keyof Secrets)[]
    /** The operator's credentials this process uses (of PROVIDER_CREDENTIALS): only these reach it. */
    credentials?: readonly string[]
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

/**
 * Credentials of the outside services the bridge talks to, set by the operator (never generated):
 * API keys, a Bitcoin node's user and password, and the URLs of hosted providers, which often carry
 * a key in their path or query. Only the bridge uses them, so no other process is given them.
 */
export const PROVIDER_CREDENTIALS: readonly string[] = [
    'SIMPLESWAP_API_KEY', 'SIMPLESWAP_API_URL', 'TRON_API_KEY', 'TRON_API_URL', 'SOLANA_RPC_URL',
    'BITCOIN_RPC_URL', 'BITCOIN_RPC_USER', 'BITCOIN_RPC_PASSWORD', 'BITCOIN_ESPLORA_URL',
    'BSC_RPC_URL', 'ETHEREUM_RPC_URL', 'POLYGON_RPC_URL', 'BRIDGE_PRICE_FEED_URL',
]

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
        credentials: PROVIDER_CREDENTIALS,
        urls: (env) => [`Bridge API               http://localhost:${env.BRIDGE_PORT}/api`, `Bridge WebSocket         ws://localhost:${env.BRIDGE_PORT}/ws`],
    },
]

/**
 * A service's environment: the common one without any secret or provider credential (not even one
 * the operator exported to the launcher), plus the secrets and credentials this service uses.
 */
export function serviceEnv(service: ServiceSpec, common: NodeJS.ProcessEnv, secrets: Secrets): NodeJS.ProcessEnv {
    const env = { ...common }
    for (const name of SECRET_VARIABLE_NAMES) delete env[name]
    for (const name of PROVIDER_CREDENTIALS) if (!service.credentials?.includes(name)) delete env[name]
    const own: Partial<Secrets> = {}
    for (const key of service.secrets) own[key] = secrets[key]
    return { ...env, ...secretVariables(own) }
}
