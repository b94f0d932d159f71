import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

/**
 * ERC-1155 balance of one holder in one token id; a row that reaches 0 is deleted in the batch that empties it.
 * Its (token, value, holder, tokenId) index, for a token's holders, is in the migration (TypeORM would give it the name of the first index below).
 */
@Index_(["token", "tokenId", "value", "holder"], {unique: false})
@Index_(["holder", "token", "tokenId"], {unique: false})
@Entity_()
export class NftBalance {
    constructor(props?: Partial<NftBalance>) {
        Object.assign(this, props)
    }

    /**
     * token-tokenId-holder
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    token!: string

    @BigIntColumn_({nullable: false})
    tokenId!: bigint

    @StringColumn_({nullable: false})
    holder!: string

    /**
     * amount held, in the token id's units
     */
    @BigIntColumn_({nullable: false})
    value!: bigint
}
