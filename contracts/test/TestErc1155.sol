// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @dev Test ERC-1155 that anyone can mint (one id or a batch); holders burn their own; uri(id) is a settable template holding `{id}`.
contract TestErc1155 is ERC1155 {
    constructor(string memory uriTemplate) ERC1155(uriTemplate) {}

    function setUri(string calldata uriTemplate) external {
        _setURI(uriTemplate);
    }

    function mint(address to, uint256 id, uint256 value) external {
        _mint(to, id, value, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        _mintBatch(to, ids, values, "");
    }

    function burn(address from, uint256 id, uint256 value) external {
        if (from != _msgSender() && !isApprovedForAll(from, _msgSender())) revert ERC1155MissingApprovalForAll(_msgSender(), from);
        _burn(from, id, value);
    }
}
