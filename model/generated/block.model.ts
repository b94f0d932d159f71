import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, IntColumn as IntColumn_, Index as Index_, StringColumn as StringColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

@Entity_()
export class Block {
    constructor(props?: Partial<Block>) {
        Object.assign(this, props)
    }

    /**
     * block hash
     */
    @PrimaryColumn_()
    id!: string

    @Index_({unique: true})
    @IntColumn_({nullable: false})
    number!: number

    @StringColumn_({nullable: false})
    parentHash!: string

    @Index_()
    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    @Index_()
    @StringColumn_({nullable: false})
    miner!: string

    @BigIntColumn_({nullable: false})
    gasUsed!: bigint

    @BigIntColumn_({nullable: false})
    gasLimit!: bigint

    @BigIntColumn_({nullable: true})
    baseFeePerGas!: bigint | undefined | null

    @IntColumn_({nullable: false})
    size!: number

    @BigIntColumn_({nullable: false})
    difficulty!: bigint

    @BigIntColumn_({nullable: true})
    totalDifficulty!: bigint | undefined | null

    @StringColumn_({nullable: false})
    nonce!: string

    @StringColumn_({nullable: false})
    extraData!: string

    /**
     * null for blocks indexed before the column existed
     */
    @StringColumn_({nullable: true})
    stateRoot!: string | undefined | null

    @IntColumn_({nullable: false})
    transactionCount!: number

    /**
     * sum of the fees of its transactions
     */
    @BigIntColumn_({nullable: false})
    transactionFees!: bigint

    /**
     * base fee x gas used (EIP-1559)
     */
    @BigIntColumn_({nullable: false})
    burntFees!: bigint

    /**
     * EIP-4844 header fields; null before Cancun (and for blocks indexed before the columns existed)
     */
    @BigIntColumn_({nullable: true})
    blobGasUsed!: bigint | undefined | null

    @BigIntColumn_({nullable: true})
    excessBlobGas!: bigint | undefined | null

    /**
     * price per blob gas, from its blob transactions' receipts; null when the block holds none
     */
    @BigIntColumn_({nullable: true})
    blobGasPrice!: bigint | undefined | null
}
