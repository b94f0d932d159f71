import {
    Account, Address, createPublicClient, createWalletClient, encodeFunctionData, getAddress, Hash, http,
    PublicClient, stringToHex, toBlobs, toHex, TransactionReceipt, TransactionSerializable,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, ContractName } from '../abi'
import { Logger } from '../common/logger'
import { DEV_MNEMONIC } from './anvil'
import { deployContract, devnetChain, ZERO_FEES } from './deploy'
import { kzg } from './kzg'

/**
 * The devnet zoo (docs/devnet.md#the-zoo): one of each thing a real chain carries and the demo
 * history does not (each proxy kind, odd tokens, failures, self-destructs, every transaction
 * type), seeded once after the history so that a fresh user can open each on the explorer.
 */

/**
 * anvil's development account 5 deploys and sends the zoo, account 6 is the EIP-7702 authority
 * (and the caller the proxy's admin check refuses). Neither is used by the history (0, 9, 10-21),
 * so the zoo's addresses follow from these accounts' nonces alone: the same on every fresh devnet.
 */
export const ZOO_ACCOUNT_INDEX = 5
export const AUTHORITY_ACCOUNT_INDEX = 6

const E18 = 10n ** 18n
/** EIP-1967's logic slot, named in the access-list transaction (the proxy reads it on every call). */
const EIP1967_LOGIC_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
/** ProxyLogic's `stored` (slot 0 is left to a Safe-like proxy's masterCopy), written through the proxy. */
const STORED_SLOT = toHex(1n, { size: 32 })
/** Init code that reverts at once (PUSH1 0, PUSH1 0, REVERT): a contract creation that fails. */
const REVERTING_INIT_CODE = '0x60006000fd'

/** What the zoo seeded, written to DATA_DIR/zoo.json. */
export interface Zoo {
    /** The account that deployed and sent the zoo. */
    account: Address
    /** Each proxy kind with the implementation it points at; the EIP-1967 proxy was upgraded from logicV1 to logicV2. */
    proxies: {
        logicV1: Address
        logicV2: Address
        eip1967: Address
        eip1967Upgrade: Hash
        eip1822: Address
        beacon: Address
        beaconProxy: Address
        safe: Address
        cloneFactory: Address
        clone: Address
    }
    /** Tokens with metadata a wallet does not expect, each minted and transferred. */
    tokens: {
        /** name() and symbol() return bytes32 (MKR-style). */
        bytes32Metadata: Address
        /** name() and symbol(), no decimals(). */
        noDecimals: Address
        /** No name(), symbol() or decimals(). */
        noMetadata: Address
        /** name() and decimals() revert. */
        revertingMetadata: Address
    }
    /** Transactions that failed: a contract creation whose init code reverts, and a call refused by `require`. */
    failures: { creation: Hash; requireRevert: Hash }
    /** SELFDESTRUCT in the creating transaction (the contract is gone) and in a later one (EIP-6780: its code stays, its balance left). */
    selfDestructs: {
        atCreation: { address: Address; transaction: Hash }
        later: { address: Address; transaction: Hash }
    }
    /** One of each transaction type the history has none of. setCode only where the chain runs Prague. */
    transactions: { legacyUnprotected: Hash; accessList: Hash; blob: Hash; setCode?: Hash }
    /** The EOA the 7702 transaction delegated, and its delegate. */
    delegation?: { authority: Address; delegate: Address }
    /** NFT collections by name (seedNftCollections). */
    nftCollections: { erc721: Address; erc1155: Address; recipient: Address }
    /** The metadata server the NFTs' token URIs point at. */
    metadataUrl: string
    /** The zoo's last block, to tell whether a restarted chain still holds it. */
    seededThrough: { number: number; hash: Hash }
}

export interface ZooOptions {
    rpcUrl: string
    chainId: number
    /** The devnet's metadata server (devnet/metadata-server.ts), for the NFTs' token URIs. */
    metadataUrl: string
    /** Whether the chain runs Prague, so takes EIP-7702 set-code transactions. */
    setCode: boolean
    log?: Logger
}

/** Sends the zoo's transactions one at a time (the devnet mines each at once) and checks each outcome. */
class ZooSender {
    readonly client: PublicClient
    constructor(readonly options: ZooOptions) {
        this.client = createPublicClient({ transport: http(options.rpcUrl) }) as PublicClient
    }

    async deploy<N extends ContractName>(from: Account, name: N, args: unknown[], value?: bigint): Promise<{ address: Address; transaction: Hash }> {
        const { address, transactionHash } = await deployContract(this.options.rpcUrl, this.options.chainId, from, name, args as never, value)
        return { address, transaction: transactionHash }
    }

    /** Calls a contract with a fixed gas limit (a call meant to fail cannot be estimated). */
    async call<N extends ContractName>(from: Account, address: Address, name: N, functionName: string, args: unknown[], outcome: 'success' | 'reverted' = 'success'): Promise<TransactionReceipt> {
        const wallet = createWalletClient({ account: from, chain: devnetChain(this.options.chainId, this.options.rpcUrl), transport: http(this.options.rpcUrl) })
        const hash = await wallet.writeContract({ address, abi: abis[name], functionName, args, gas: 500_000n, ...ZERO_FEES } as never)
        return this.receipt(hash, `${functionName} on ${name} ${address}`, outcome)
    }

    /** Signs a transaction of any type with a development key and sends it raw: what viem's wallet would not send (no EIP-155 chain id). */
    async signed(from: Account, tx: TransactionSerializable, what: string, outcome: 'success' | 'reverted' = 'success'): Promise<Hash> {
        const nonce = await this.client.getTransactionCount({ address: from.address, blockTag: 'pending' })
        const raw = await from.signTransaction!({ ...tx, nonce } as TransactionSerializable)
        const hash = await this.client.request({ method: 'eth_sendRawTransaction', params: [raw] })
        await this.receipt(hash, what, outcome)
        return hash
    }

    private async receipt(hash: Hash, what: string, outcome: 'success' | 'reverted'): Promise<TransactionReceipt> {
        const receipt = await this.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        if (receipt.status !== outcome) throw new Error(`devnet zoo: ${what} was meant to end ${outcome}, ended ${receipt.status} (transaction ${hash})`)
        return receipt
    }
}

/** Seeds the zoo on a chain that mines each transaction at once. Deterministic: the same chain state before gives the same zoo. */
export async function seedZoo(options: ZooOptions): Promise<Zoo> {
    const sender = new ZooSender(options)
    const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: ZOO_ACCOUNT_INDEX })
    const authority = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: AUTHORITY_ACCOUNT_INDEX })
    const proxies = await seedProxies(sender, account)
    const tokens = await seedOddTokens(sender, account, authority)
    const failures = await seedFailures(sender, account, authority, proxies.eip1967)
    const selfDestructs = await seedSelfDestructs(sender, account)
    const { transactions, delegation } = await seedTransactionTypes(sender, account, authority, proxies)
    const nftCollections = await seedNftCollections(sender, account, options.metadataUrl)
    const head = await sender.client.getBlock({ blockTag: 'latest' })
    const zoo: Zoo = {
        account: account.address, proxies, tokens, failures, selfDestructs, transactions, delegation, nftCollections,
        metadataUrl: options.metadataUrl,
        seededThrough: { number: Number(head.number), hash: head.hash },
    }
    options.log?.info({ lastBlock: zoo.seededThrough.number }, 'devnet zoo seeded')
    return zoo
}

/** Every proxy kind the indexer detects, all in front of ProxyLogicV1; the EIP-1967 one upgraded to V2 and called through. */
async function seedProxies(sender: ZooSender, account: Account): Promise<Zoo['proxies']> {
    const logicV1 = (await sender.deploy(account, 'ProxyLogicV1', [])).address
    const logicV2 = (await sender.deploy(account, 'ProxyLogicV2', [])).address
    const eip1967 = (await sender.deploy(account, 'Eip1967Proxy', [logicV1])).address
    const upgrade = await sender.call(account, eip1967, 'Eip1967Proxy', 'upgradeProxyTo', [logicV2])
    // A call decoded with the implementation's ABI on the proxy's page.
    await sender.call(account, eip1967, 'ProxyLogicV2', 'store', [21n])
    const eip1822 = (await sender.deploy(account, 'Eip1822Proxy', [logicV1])).address
    const beacon = (await sender.deploy(account, 'TestBeacon', [logicV1])).address
    const beaconProxy = (await sender.deploy(account, 'TestBeaconProxy', [beacon])).address
    const safe = (await sender.deploy(account, 'SafeLikeProxy', [logicV1])).address
    const cloneFactory = (await sender.deploy(account, 'CloneFactory', [])).address
    const cloned = await sender.call(account, cloneFactory, 'CloneFactory', 'clone', [logicV1])
    // Cloned(address clone): the clone's address is the event's only word.
    const clone = getAddress(`0x${cloned.logs[0].data.slice(-40)}`)
    return { logicV1, logicV2, eip1967, eip1967Upgrade: upgrade.transactionHash, eip1822, beacon, beaconProxy, safe, cloneFactory, clone }
}

/** The odd tokens, each with a mint and a transfer (a mint to a second holder where the token has no transfer), so their pages have holders and transfers. */
async function seedOddTokens(sender: ZooSender, account: Account, holder: Account): Promise<Zoo['tokens']> {
    const names = { bytes32Metadata: 'Bytes32Token', noDecimals: 'NoDecimalsToken', noMetadata: 'NoMetadataToken', revertingMetadata: 'RevertingNameToken' } as const
    const tokens = {} as Zoo['tokens']
    for (const [key, name] of Object.entries(names) as [keyof Zoo['tokens'], (typeof names)[keyof typeof names]][]) {
        const token = (await sender.deploy(account, name, [])).address
        await sender.call(account, token, name, 'mint', [account.address, 1_000n * E18])
        if (name === 'RevertingNameToken') await sender.call(account, token, name, 'mint', [holder.address, 100n * E18])
        else await sender.call(account, token, name, 'transfer', [holder.address, 100n * E18])
        tokens[key] = token
    }
    return tokens
}

/** A creation whose init code reverts, and an upgrade of the EIP-1967 proxy by someone not its admin (`require(..., "not admin")`). */
async function seedFailures(sender: ZooSender, account: Account, outsider: Account, eip1967: Address): Promise<Zoo['failures']> {
    const creation = await sender.signed(account, {
        type: 'eip1559', data: REVERTING_INIT_CODE, gas: 100_000n, chainId: sender.options.chainId, ...ZERO_FEES,
    }, 'the failing contract creation', 'reverted')
    const refused = await sender.call(outsider, eip1967, 'Eip1967Proxy', 'upgradeProxyTo', [outsider.address], 'reverted')
    return { creation, requireRevert: refused.transactionHash }
}

/**
 * SELFDESTRUCT under Cancun rules and later (EIP-6780): in the transaction that created the
 * contract it deletes the contract, afterwards it only sends the balance away and the code stays.
 * One of each, each holding 1 coin that goes back to the zoo's account.
 */
async function seedSelfDestructs(sender: ZooSender, account: Account): Promise<Zoo['selfDestructs']> {
    const atCreation = await sender.deploy(account, 'SelfDestructing', [account.address, true], E18)
    const later = await sender.deploy(account, 'SelfDestructing', [account.address, false], E18)
    const destroyed = await sender.call(account, later.address, 'SelfDestructing', 'destroy', [account.address])
    return { atCreation, later: { address: later.address, transaction: destroyed.transactionHash } }
}

/**
 * The transaction types the history (EIP-1559 only) lacks: a legacy transaction without EIP-155's
 * chain id, an EIP-2930 access list (a call through the upgraded proxy naming the slots it reads),
 * an EIP-4844 blob, and under Prague an EIP-7702 delegation of the authority to ProxyLogicV1, with
 * a call to the authority that runs the delegate's code.
 */
async function seedTransactionTypes(sender: ZooSender, account: Account, authority: Account, proxies: Zoo['proxies']): Promise<Pick<Zoo, 'transactions' | 'delegation'>> {
    const chainId = sender.options.chainId
    const legacyUnprotected = await sender.signed(account, { type: 'legacy', to: authority.address, value: 1n, gas: 21_000n, gasPrice: 0n }, 'the legacy transaction without EIP-155')
    const store = (value: bigint) => encodeFunctionData({ abi: abis.ProxyLogicV2, functionName: 'store', args: [value] })
    const accessList = await sender.signed(account, {
        type: 'eip2930', to: proxies.eip1967, data: store(42n), gas: 100_000n, gasPrice: 0n, chainId,
        accessList: [{ address: proxies.eip1967, storageKeys: [EIP1967_LOGIC_SLOT, STORED_SLOT] }, { address: proxies.logicV2, storageKeys: [] }],
    }, 'the access-list transaction')
    const blob = await sender.signed(account, {
        type: 'eip4844', to: authority.address, gas: 21_000n, chainId, ...ZERO_FEES, maxFeePerBlobGas: 10n,
        blobs: toBlobs({ data: stringToHex('A blob of the devnet zoo (EIP-4844).') }), kzg: kzg(),
    }, 'the blob transaction')
    if (!sender.options.setCode) return { transactions: { legacyUnprotected, accessList, blob } }
    const authorization = await authority.signAuthorization!({
        contractAddress: proxies.logicV1, chainId, nonce: await sender.client.getTransactionCount({ address: authority.address, blockTag: 'pending' }),
    })
    const setCode = await sender.signed(account, {
        type: 'eip7702', to: authority.address, data: store(7n), gas: 300_000n, chainId, ...ZERO_FEES, authorizationList: [authorization],
    }, 'the EIP-7702 delegation')
    return {
        transactions: { legacyUnprotected, accessList, blob, setCode },
        delegation: { authority: authority.address, delegate: proxies.logicV1 },
    }
}

/** Where the zoo's NFTs go: an EOA no zoo transaction sends from (ERC-1155 safe transfers call a recipient with code). */
export const NFT_RECIPIENT_ACCOUNT_INDEX = 7

/**
 * NFT collections: an ERC-721 whose token URIs are a `data:` URI and `${metadataUrl}/nft/{id}.json`
 * (one token transferred, one burnt), and an ERC-1155 whose URI is `${metadataUrl}/erc1155/{id}.json`
 * with a batch mint and a batch transfer. Seeded last, so that the contracts before them keep
 * their addresses.
 */
async function seedNftCollections(sender: ZooSender, account: Account, metadataUrl: string): Promise<Zoo['nftCollections']> {
    const recipient = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: NFT_RECIPIENT_ACCOUNT_INDEX }).address
    const erc721 = (await sender.deploy(account, 'TestErc721', ['Devnet Zoo NFT', 'ZNFT'])).address
    const inline = { name: 'Zoo NFT #1', description: 'An ERC-721 whose metadata is a data: URI', image: `${metadataUrl}/nft/1.svg` }
    const dataUri = `data:application/json;base64,${Buffer.from(JSON.stringify(inline)).toString('base64')}`
    await sender.call(account, erc721, 'TestErc721', 'mint', [account.address, 1n, dataUri])
    for (const id of [2n, 3n]) await sender.call(account, erc721, 'TestErc721', 'mint', [account.address, id, `${metadataUrl}/nft/${id}.json`])
    await sender.call(account, erc721, 'TestErc721', 'transferFrom', [account.address, recipient, 2n])
    await sender.call(account, erc721, 'TestErc721', 'burn', [3n])
    const erc1155 = (await sender.deploy(account, 'TestErc1155', [`${metadataUrl}/erc1155/{id}.json`])).address
    await sender.call(account, erc1155, 'TestErc1155', 'mintBatch', [account.address, [1n, 2n, 3n], [10n, 20n, 1n]])
    await sender.call(account, erc1155, 'TestErc1155', 'safeBatchTransferFrom', [account.address, recipient, [1n, 2n], [4n, 5n], '0x'])
    await sender.call(account, erc1155, 'TestErc1155', 'safeTransferFrom', [account.address, recipient, 3n, 1n, '0x'])
    return { erc721, erc1155, recipient }
}
