import { SolanaSettingsSchema } from '../bridge/chains/solana/config'
import { TronSettingsSchema } from '../bridge/chains/tron/config'
import { parseEnv } from '../common/config'
import { DevnetSettingsSchema } from './config'
import { sendSolana } from './solana/send'
import { sendTron } from './tron/send'

/**
 * `npm run devnet -- send <NETWORK> <address> <amount> [TOKEN]`: pays an address from development
 * key 0 on a local network, through its URL as a wallet would, and prints the transaction id
 * (docs/bridge/README.md#local-chains-npm-start).
 */

const CliEnvSchema = DevnetSettingsSchema.extend({ ...TronSettingsSchema.shape, ...SolanaSettingsSchema.shape })
type CliEnv = ReturnType<typeof CliEnvSchema.parse>

/** Each network's sender: amount in whole units (a decimal string), token when the network has more than its coin. */
const SENDERS: Record<string, { tokens: string[]; send(env: CliEnv, to: string, amount: string, token: string): Promise<string> }> = {
    TRON: { tokens: ['TRX', 'USDT'], send: (env, to, amount, token) => sendTron(env, to, amount, token as 'TRX' | 'USDT') },
    SOLANA: { tokens: ['SOL'], send: (env, to, amount) => sendSolana(env, to, amount) },
}

const USAGE = `usage: npm run devnet -- send <NETWORK> <address> <amount> [TOKEN]
  NETWORK: ${Object.entries(SENDERS).map(([name, s]) => `${name} (${s.tokens.join(', ')})`).join(', ')}
  amount in whole units, e.g. 0.5; TOKEN defaults to the network's coin`

async function main(args: string[]): Promise<number> {
    const [command, network, to, amount, token] = args
    const sender = SENDERS[(network ?? '').toUpperCase()]
    if (command !== 'send' || !sender || !to || !amount || args.length > 5) {
        process.stderr.write(USAGE + '\n')
        return 2
    }
    const chosen = (token ?? sender.tokens[0]).toUpperCase()
    if (!sender.tokens.includes(chosen)) {
        process.stderr.write(`${network.toUpperCase()} sends ${sender.tokens.join(' or ')}, not ${token}\n`)
        return 2
    }
    process.stdout.write((await sender.send(parseEnv(CliEnvSchema), to, amount, chosen)) + '\n')
    return 0
}

main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
        process.stderr.write(`${(err as Error).message}\n`)
        process.exit(1)
    }
)
