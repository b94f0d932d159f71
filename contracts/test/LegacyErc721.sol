// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev An ERC-721 as early ones (CryptoKitties) were written: Transfer carries the token id as data, the shape of an
/// ERC-20 Transfer. It claims ERC-721 through ERC-165, which is how an indexer tells it from an ERC-20.
contract LegacyErc721 {
    mapping(uint256 => address) public ownerOf;

    event Transfer(address indexed from, address indexed to, uint256 tokenId);

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x80ac58cd || interfaceId == 0x01ffc9a7;
    }

    function mint(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == address(0), "minted");
        ownerOf[tokenId] = to;
        emit Transfer(address(0), to, tokenId);
    }

    function transfer(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == msg.sender, "not the owner");
        ownerOf[tokenId] = to;
        emit Transfer(msg.sender, to, tokenId);
    }
}
