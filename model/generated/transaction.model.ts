import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, IntColumn as IntColumn_, StringColumn as StringColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, BytesColumn as BytesColumn_, BooleanColumn as BooleanColumn_, JSONColumn as JSONColumn_} from "@subsquid/typeorm-store"

@Index_(["blockNumber", "index"], {unique: true})
@Index_(["from", "blockNumber", "index"], {unique: false})
@Index_(["to", "blockNumber", "index"], {unique: false})
@Entity_()
export class Transaction {
    constructor(props?: Partial<Transaction>) {
        Object.assign(this, props)
    }

    /**
     * transaction hash
     */
    @PrimaryColumn_()
    id!: string

    @IntColumn_({nullable: false})
    blockNumber!: number

    @StringColumn_({nullable: false})
    blockHash!: string

    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    /**
     * position in the block
     */
    @IntColumn_({nullable: false})
    index!: number

    @StringColumn_({nullable: false})
    from!: string

    @StringColumn_({nullable: true})
    to!: string | undefined | null

    @Index_()
    @StringColumn_({nullable: true})
    createdContract!: string | undefined | null

    @BigIntColumn_({nullable: false})
    value!: bigint

    @IntColumn_({nullable: false})
    nonce!: number

    @IntColumn_({nullable: true})
    type!: number | undefined | null

    @BigIntColumn_({nullable: false})
    gasLimit!: bigint

    @BigIntColumn_({nullable: true})
    gasPrice!: bigint | undefined | null

    @BigIntColumn_({nullable: true})
    maxFeePerGas!: bigint | undefined | null

    @BigIntColumn_({nullable: true})
    maxPriorityFeePerGas!: bigint | undefined | null

    @BigIntColumn_({nullable: false})
    gasUsed!: bigint

    @BigIntColumn_({nullable: false})
    effectiveGasPrice!: bigint

    /**
     * gas used x effective gas price
     */
    @BigIntColumn_({nullable: false})
    fee!: bigint

    /**
     * 1 success, 0 reverted
     */
    @IntColumn_({nullable: false})
    status!: number

    @BytesColumn_({nullable: false})
    input!: Uint8Array

    /**
     * first four bytes of the input, 0x-hex, null for plain transfers
     */
    @StringColumn_({nullable: true})
    methodId!: string | undefined | null

    @IntColumn_({nullable: false})
    logCount!: number

    @IntColumn_({nullable: false})
    tokenTransferCount!: number

    /**
     * whether a call frame below the transaction's own call failed; null when the node gave no call trees
     */
    @BooleanColumn_({nullable: true})
    hasErrorInInternalTransactions!: boolean | undefined | null

    /**
     * chain id it was signed for; null for a legacy transaction without EIP-155 replay protection
     */
    @BigIntColumn_({nullable: true})
    chainId!: bigint | undefined | null

    /**
     * EIP-2930 access list [{address, storageKeys}] (types 1 to 4); null for legacy transactions
     */
    @JSONColumn_({nullable: true})
    accessList!: unknown | undefined | null

    /**
     * EIP-4844 (type 3): fee cap per blob gas, the blobs' versioned hashes, and the receipt's blob gas used and price
     */
    @BigIntColumn_({nullable: true})
    maxFeePerBlobGas!: bigint | undefined | null

    @JSONColumn_({nullable: true})
    blobVersionedHashes!: unknown | undefined | null

    @BigIntColumn_({nullable: true})
    blobGasUsed!: bigint | undefined | null

    @BigIntColumn_({nullable: true})
    blobGasPrice!: bigint | undefined | null

    /**
     * EIP-7702 (type 4): [{chainId, address, nonce, yParity, r, s, authority, status}], authority recovered from the signature (null if it cannot be), status ok / invalid_chain_id / invalid_signature / invalid_nonce
     */
    @JSONColumn_({nullable: true})
    authorizationList!: unknown | undefined | null

    /**
     * the top-level call's error as the node traced it (Reverted, execution reverted, out of gas, ...); null on success and without call trees
     */
    @StringColumn_({nullable: true})
    error!: string | undefined | null

    /**
     * a reverted transaction's revert data (Error(string), Panic(uint256), a custom error, or empty), from its call tree or, without one, an eth_call replay: docs/indexer.md#revert-data; null otherwise
     */
    @BytesColumn_({nullable: true})
    revertData!: Uint8Array | undefined | null
}
