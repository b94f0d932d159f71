import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, IntColumn as IntColumn_, StringColumn as StringColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, BytesColumn as BytesColumn_} from "@subsquid/typeorm-store"

@Entity_()
export class InternalTransaction {
    constructor(props?: Partial<InternalTransaction>) {
        Object.assign(this, props)
    }

    /**
     * zero-padded block number, transaction index and frame index
     */
    @PrimaryColumn_()
    id!: string

    @IntColumn_({nullable: false})
    blockNumber!: number

    @StringColumn_({nullable: false})
    blockHash!: string

    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    @StringColumn_({nullable: false})
    transactionHash!: string

    @IntColumn_({nullable: false})
    transactionIndex!: number

    /**
     * position of the frame in the transaction's call tree, depth first; 0 is the transaction's own call
     */
    @IntColumn_({nullable: false})
    index!: number

    /**
     * path from the top-level call, e.g. [0, 2]; empty for the top-level call
     */
    @IntColumn_({array: true, nullable: false})
    traceAddress!: (number)[]

    /**
     * call, delegatecall, staticcall, callcode, create, create2, selfdestruct or reward
     */
    @StringColumn_({nullable: false})
    type!: string

    @StringColumn_({nullable: false})
    from!: string

    /**
     * callee, or the beneficiary of a selfdestruct; null for creations
     */
    @StringColumn_({nullable: true})
    to!: string | undefined | null

    @StringColumn_({nullable: true})
    createdContract!: string | undefined | null

    @BigIntColumn_({nullable: false})
    value!: bigint

    @BigIntColumn_({nullable: true})
    gas!: bigint | undefined | null

    @BigIntColumn_({nullable: true})
    gasUsed!: bigint | undefined | null

    /**
     * call data, or the init code of a creation
     */
    @BytesColumn_({nullable: true})
    input!: Uint8Array | undefined | null

    /**
     * return data, or the code of a created contract
     */
    @BytesColumn_({nullable: true})
    output!: Uint8Array | undefined | null

    /**
     * null when the frame succeeded
     */
    @StringColumn_({nullable: true})
    error!: string | undefined | null
}
