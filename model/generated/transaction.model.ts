import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, IntColumn as IntColumn_, StringColumn as StringColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, BytesColumn as BytesColumn_, BooleanColumn as BooleanColumn_} from "@subsquid/typeorm-store"

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
}
