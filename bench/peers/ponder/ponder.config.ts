import { createConfig, factory } from 'ponder'
import { erc20, pair, pairCreated } from './abis'

/** Ponder on the bench chain; bench/peers.ts sets every variable: docs/testing.md#benchmarks */

function env(name: string): string {
    const value = process.env[name]
    if (!value) throw new Error(`${name} is not set (bench/peers.ts sets it)`)
    return value
}

const endBlock = Number(env('PONDER_END_BLOCK'))

export default createConfig({
    database: { kind: 'postgres', connectionString: env('DATABASE_URL') },
    chains: {
        bench: {
            id: 3009,
            // Several URLs, as Ponder's docs advise for throughput: it load-balances across them and
            // limits each URL's requests per second on its own (starting at 20/s), so one URL caps it.
            rpc: env('PONDER_RPC_URLS').split(','),
        },
    },
    contracts: {
        // Every ERC-20 Transfer, whichever contract emits it.
        ERC20: { abi: erc20, chain: 'bench', startBlock: 0, endBlock },
        Pair: {
            abi: pair,
            chain: 'bench',
            address: factory({ address: env('PONDER_FACTORY_ADDRESS') as `0x${string}`, event: pairCreated, parameter: 'pair' }),
            startBlock: 0,
            endBlock,
        },
    },
})
