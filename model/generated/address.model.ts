import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_, BooleanColumn as BooleanColumn_, StringColumn as StringColumn_} from "@subsquid/typeorm-store"

@Entity_()
export class Address {
    constructor(props?: Partial<Address>) {
        Object.assign(this, props)
    }

    /**
     * lowercase address
     */
    @PrimaryColumn_()
    id!: string

    /**
     * native coin balance in anative, refreshed whenever the address is touched
     */
    @BigIntColumn_({nullable: false})
    balance!: bigint

    @IntColumn_({nullable: false})
    balanceBlock!: number

    @BooleanColumn_({nullable: false})
    isContract!: boolean

    /**
     * transactions sent or received
     */
    @IntColumn_({nullable: false})
    transactionCount!: number

    @IntColumn_({nullable: false})
    tokenTransferCount!: number

    /**
     * gas used by the transactions it sent
     */
    @BigIntColumn_({nullable: false})
    gasUsed!: bigint

    @IntColumn_({nullable: false})
    logCount!: number

    @IntColumn_({nullable: false})
    firstBlock!: number

    @IntColumn_({nullable: false})
    lastBlock!: number

    @StringColumn_({nullable: true})
    creator!: string | undefined | null

    @StringColumn_({nullable: true})
    creationTransaction!: string | undefined | null

    /**
     * EIP-7702: the address an EOA's code delegates to (code 0xef0100 || address), as read from the node after the last batch with an authorization it signed; null when none
     */
    @StringColumn_({nullable: true})
    delegatedTo!: string | undefined | null

    /**
     * block at which delegatedTo was last read; null when never
     */
    @IntColumn_({nullable: true})
    delegationBlock!: number | undefined | null

    /**
     * true when the contract's code was gone at the end of a batch with a selfdestruct frame of it; false when it was there then, or a creation made code here since; null when neither was seen
     */
    @BooleanColumn_({nullable: true})
    selfDestructed!: boolean | undefined | null
}
