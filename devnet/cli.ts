import { Address } from 'viem'
import { BridgeSettingsSchema } from '../bridge/config'
import { BitcoinSettingsSchema } from '../bridge/chains/bitcoin/config'
import { SolanaSettingsSchema } from '../bridge/chains/solana/config'
import { TronSettingsSchema } from '../bridge/chains/tron/config'
import { parseEnv, readBridgeChains, readDeployment, rpcUrl, SharedEnvSchema } from '../common/config'
import { sendBitcoin } from './bitcoin/send'
import { BRIDGE_NETWORKS } from './bridge-chains'
import { DevnetSettingsSchema } from './config'
import { EVM_NETWORKS, EvmNetwork, EvmTarget, sendEvm } from './evm/send'
import { sendSolana } from './solana/send'
import { sendTron, TronToken } from './tron/send'

/**
 * `npm run devnet -- send <NETWORK> <address> <amount> [TOKEN]`: pays an address on a local
 * network from development key 0, through the network's public API as a wallet would, and prints
 * the transaction id (docs/bridge/README.md#local-chains-npm-start). It reads the environment
 * `npm start` reads, so it finds the same networks.
 */

const CliEnvSchema = SharedEnvSchema.extend({
    ...DevnetSettingsSchema.shape,
    ...BridgeSettingsSchema.pick({ BSC_RPC_URL: true, ETHEREUM_RPC_URL: true, POLYGON_RPC_URL: true }).shape,
    ...BitcoinSettingsSchema.pick({ BITCOIN_ESPLORA_URL: true }).shape,
    ...TronSettingsSchema.pick({ TRON_API_URL: true, TRON_API_KEY: true, TRON_USDT_CONTRACT: true }).shape,
    ...SolanaSettingsSchema.pick({ SOLANA_RPC_URL: true }).shape,
})
type CliEnv = ReturnType<typeof parseCliEnv>
const parseCliEnv = (env: NodeJS.ProcessEnv) => parseEnv(CliEnvSchema, env)

/** Sends `amount` (whole units, a decimal string) of the coin or of TOKEN; the transaction id. */
type Sender = (env: CliEnv, to: string, amount: string, token?: string) => Promise<string>

function evmTarget(env: CliEnv, network: EvmNetwork): EvmTarget {
    if (network === 'NATIVECHAIN') {
        const deployment = readDeployment(env)
        const tokens: Record<string, Address> = deployment ? { WNATIVE: deployment.contracts.wnative, STABLE: deployment.contracts.stable, ...deployment.tokens } : {}
        return { rpcUrl: rpcUrl(env), chainId: env.CHAIN_ID, tokens }
    }
    const spec = BRIDGE_NETWORKS.find((n) => n.name === network)!
    const local = readBridgeChains(env)[network]
    const url = env[spec.rpcVariable] ?? local?.rpcUrl ?? `http://127.0.0.1:${env[spec.portVariable]}`
    // The recorded tokens are those of the local chain only.
    return { rpcUrl: url, chainId: spec.chainId, tokens: local && local.rpcUrl === url ? local.tokens : {} }
}

/** A command line the CLI cannot act on: answered with the usage and status 2, unlike a send that fails (1). */
class UsageError extends Error {}

/** The token a network with a fixed set takes: the first (its coin) when none is named. */
function oneOf<T extends string>(network: string, tokens: readonly T[], token: string | undefined): T {
    const chosen = (token ?? tokens[0]).toUpperCase()
    if (!(tokens as readonly string[]).includes(chosen)) throw new UsageError(`${network} sends ${tokens.join(' or ')}, not ${token}`)
    return chosen as T
}

export const SENDERS: Record<string, Sender> = {
    TRON: (env, to, amount, token) => sendTron(env, to, amount, oneOf<TronToken>('TRON', ['TRX', 'USDT'], token)),
    SOLANA: (env, to, amount, token) => {
        oneOf('SOLANA', ['SOL'], token)
        return sendSolana(env, to, amount)
    },
    BITCOIN: (env, to, amount, token) => {
        oneOf('BITCOIN', ['BTC'], token)
        return sendBitcoin(env.BITCOIN_ESPLORA_URL ?? `http://127.0.0.1:${env.BITCOIN_DEVNET_PORT}`, to, amount)
    },
    ...Object.fromEntries(EVM_NETWORKS.map((network) => [network, ((env, to, amount, token) => sendEvm(network, evmTarget(env, network), to, amount, token)) as Sender])),
}

const USAGE = `usage: npm run devnet -- send <NETWORK> <address> <amount> [TOKEN]
  NETWORK: ${Object.keys(SENDERS).join(', ')}
  amount in whole units (0.01); TOKEN a symbol (USDT, STABLE, …), the network's coin when left out`

export async function main(argv: string[]): Promise<number> {
    const [command, network, to, amount, token, ...extra] = argv
    if (command !== 'send' || !network || !to || !amount || extra.length > 0) {
        process.stderr.write(`${USAGE}\n`)
        return 2
    }
    const sender = SENDERS[network.toUpperCase()]
    if (!sender) {
        process.stderr.write(`unknown network ${network}\n${USAGE}\n`)
        return 2
    }
    try {
        const txid = await sender(parseCliEnv(process.env), to, amount, token)
        process.stdout.write(`${txid}\n`)
        return 0
    } catch (err) {
        if (err instanceof UsageError) {
            process.stderr.write(`${err.message}\n${USAGE}\n`)
            return 2
        }
        process.stderr.write(`send failed: ${(err as Error).message}\n`)
        return 1
    }
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => process.exit(code))
