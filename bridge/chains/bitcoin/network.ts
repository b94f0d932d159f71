import * as bitcoin from 'bitcoinjs-lib'
import * as ecc from 'tiny-secp256k1'

/**
 * The Bitcoin networks the bridge can run on, and what tells them apart. Addresses tell mainnet
 * from the test networks (and bech32 regtest from testnet), but testnet3, testnet4 and signet
 * share one address format, so a backend is recognised by its genesis block hash
 * (GET /block-height/0): the Bitcoin counterpart of checking an EVM node's chain id.
 */

// Taproot (bech32m) payout addresses are turned into scripts by bitcoinjs, which checks their key
// is on the curve; it needs an elliptic-curve library registered once per process.
bitcoin.initEccLib(ecc)

export type BitcoinNetworkName = 'mainnet' | 'testnet' | 'regtest'

export const BITCOIN_NETWORKS: readonly BitcoinNetworkName[] = ['mainnet', 'testnet', 'regtest']

export interface BitcoinNetworkParams {
    name: BitcoinNetworkName
    /** bitcoinjs's address/WIF parameters. */
    params: bitcoin.Network
    /** BIP-44 coin type in the BIP-84 path: 0 on mainnet, 1 on every test network (SLIP-44). */
    coinType: 0 | 1
    /** Genesis block hashes a backend of this network may report; testnet stands for testnet3, testnet4 and signet. */
    genesis: Record<string, string>
}

export const NETWORKS: Record<BitcoinNetworkName, BitcoinNetworkParams> = {
    mainnet: {
        name: 'mainnet',
        params: bitcoin.networks.bitcoin,
        coinType: 0,
        genesis: { mainnet: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f' },
    },
    testnet: {
        name: 'testnet',
        params: bitcoin.networks.testnet,
        coinType: 1,
        genesis: {
            testnet3: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
            testnet4: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
            signet: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6',
        },
    },
    regtest: {
        name: 'regtest',
        params: bitcoin.networks.regtest,
        coinType: 1,
        genesis: { regtest: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206' },
    },
}

export function bitcoinNetwork(name: string): BitcoinNetworkParams {
    if (!(BITCOIN_NETWORKS as readonly string[]).includes(name)) {
        throw new Error(`unknown Bitcoin network "${name}" (expected one of ${BITCOIN_NETWORKS.join(', ')})`)
    }
    return NETWORKS[name as BitcoinNetworkName]
}

/** Which network a genesis hash belongs to, or undefined when it is none of the known ones. */
export function networkOfGenesis(hash: string): { network: BitcoinNetworkName; chain: string } | undefined {
    for (const params of Object.values(NETWORKS)) {
        for (const [chain, genesis] of Object.entries(params.genesis)) if (genesis === hash.toLowerCase()) return { network: params.name, chain }
    }
    return undefined
}
