import { Abi, Address, createWalletClient, encodeFunctionData, getAddress, Hash, Hex, http, keccak256, stringToHex, toBlobs, TransactionSerializable } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../../abi'
import { DEV_MNEMONIC } from '../../devnet/anvil'
import { deployContract, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { CHAIN_ID } from '../../test/support/chain'
import { kzg } from '../../devnet/kzg'
import { World } from './harness'

/**
 * One of each kind of row the indexer's newest columns and tables hold, so that a crash scenario
 * covers them (docs/RELIABILITY.md): an EIP-1967 proxy deployed and upgraded (proxy_contract),
 * EIP-2930 and EIP-1559 transactions with access lists, a blob transaction, an EIP-7702
 * authorization (on a Prague chain), a failed transaction whose revert data is a custom error passed
 * up by a caller, a failed inner call that its caller caught (revert data, internal errors), and
 * NFTs: an ERC-721 minted and transferred (token_instance) and an ERC-1155 batch minted and partly
 * moved by a batch transfer (flattened transfers, nft_balance).
 * Every transaction is mined in a block of its own (the devnet automines).
 */
export async function sendVariety(world: World, round: number): Promise<void> {
    const url = world.chain.url
    // A funded development account the seeding does not send from (a blob costs blob gas), and an
    // unfunded authority: an EIP-7702 authorization needs no funds of its signer.
    const deployer = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 8 })
    const authority = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 31 })
    const wallet = createWalletClient({ account: deployer, chain: devnetChain(CHAIN_ID, url), transport: http(url) })
    const mined = async (hash: Hash) => world.chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    const call = async (to: Address, abi: Abi, functionName: string, args: unknown[]) =>
        mined(await wallet.sendTransaction({ to, data: encodeFunctionData({ abi, functionName, args }), gas: 500_000n, ...ZERO_FEES } as never))
    const nonce = () => world.chain.client.getTransactionCount({ address: deployer.address, blockTag: 'pending' })
    const signed = async (tx: TransactionSerializable) =>
        mined(await world.chain.client.request({ method: 'eth_sendRawTransaction', params: [await deployer.signTransaction(tx)] }))

    const v1 = (await deployContract(url, CHAIN_ID, deployer, 'ProxyLogicV1', [])).address
    const v2 = (await deployContract(url, CHAIN_ID, deployer, 'ProxyLogicV2', [])).address
    const proxy = (await deployContract(url, CHAIN_ID, deployer, 'Eip1967Proxy', [v1])).address
    await call(proxy, abis.Eip1967Proxy as Abi, 'upgradeProxyTo', [v2])

    const accessList = [{ address: proxy, storageKeys: [keccak256(stringToHex(`slot ${round}`))] }]
    const common = { to: authority.address, value: 1n, gas: 100_000n, chainId: CHAIN_ID }
    await signed({ ...common, type: 'eip2930', gasPrice: 0n, accessList, nonce: await nonce() })
    await signed({ ...common, type: 'eip1559', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, accessList, nonce: await nonce() })
    await signed({
        ...common, type: 'eip4844', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, maxFeePerBlobGas: 10n,
        blobs: toBlobs({ data: stringToHex(`blob ${round}`) }), kzg: kzg(), nonce: await nonce(),
    })
    const authorization = await authority.signAuthorization!({
        contractAddress: v1, chainId: CHAIN_ID, nonce: await world.chain.client.getTransactionCount({ address: authority.address }),
    })
    await signed({ ...common, value: 0n, gas: 300_000n, type: 'eip7702', maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, authorizationList: [authorization], nonce: await nonce() })

    const caller = (await deployContract(url, CHAIN_ID, deployer, 'RevertCaller', [])).address
    const target = getAddress(await world.chain.client.readContract({ address: caller, abi: abis.RevertCaller, functionName: 'target' }) as Hex)
    await call(target, abis.Reverter as Abi, 'requireMessage', [100n + BigInt(round)])
    await call(caller, abis.RevertCaller as Abi, 'bubbleRefuse', [BigInt(round)])
    await call(caller, abis.RevertCaller as Abi, 'tryRefuse', [BigInt(round)])

    const nft = (await deployContract(url, CHAIN_ID, deployer, 'TestErc721', [`Crash NFT ${round}`, 'CRASH'])).address
    await call(nft, abis.TestErc721 as Abi, 'mint', [deployer.address, 1n, `data:application/json,{"round":${round}}`])
    await call(nft, abis.TestErc721 as Abi, 'transferFrom', [deployer.address, authority.address, 1n])
    const multi = (await deployContract(url, CHAIN_ID, deployer, 'TestErc1155', ['data:application/json,{}'])).address
    await call(multi, abis.TestErc1155 as Abi, 'mintBatch', [deployer.address, [1n, 2n, 3n], [5n, 6n, 7n]])
    // To an EOA without code: the authority above is delegated, and a safe transfer calls a recipient with code.
    const holder = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 32 }).address
    await call(multi, abis.TestErc1155 as Abi, 'safeBatchTransferFrom', [deployer.address, holder, [1n, 2n], [5n, 1n], '0x'])
}
