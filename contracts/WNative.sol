// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Wrapped native coin
/// @notice WETH9-style: depositing coin mints the same amount of WNATIVE, withdrawing burns it.
/// Like WETH9, wrapping and unwrapping emit Deposit and Withdrawal, not Transfer; indexers count
/// them as mints and burns.
contract WNative {
    string public constant name = "Wrapped Native";
    string public constant symbol = "WNATIVE";
    uint8 public constant decimals = 18;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);

    receive() external payable {
        deposit();
    }

    function deposit() public payable {
        balanceOf[msg.sender] += msg.value;
        emit Deposit(msg.sender, msg.value);
    }

    function withdraw(uint256 wad) external {
        require(balanceOf[msg.sender] >= wad, "WNATIVE: INSUFFICIENT_BALANCE");
        balanceOf[msg.sender] -= wad;
        emit Withdrawal(msg.sender, wad);
        (bool sent, ) = msg.sender.call{value: wad}("");
        require(sent, "WNATIVE: COIN_TRANSFER_FAILED");
    }

    /// @notice All coin held is backing for the supply.
    function totalSupply() external view returns (uint256) {
        return address(this).balance;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        return transferFrom(msg.sender, to, value);
    }

    function transferFrom(address from, address to, uint256 value) public returns (bool) {
        require(balanceOf[from] >= value, "WNATIVE: INSUFFICIENT_BALANCE");
        if (from != msg.sender && allowance[from][msg.sender] != type(uint256).max) {
            require(allowance[from][msg.sender] >= value, "WNATIVE: INSUFFICIENT_ALLOWANCE");
            allowance[from][msg.sender] -= value;
        }
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
        return true;
    }
}
