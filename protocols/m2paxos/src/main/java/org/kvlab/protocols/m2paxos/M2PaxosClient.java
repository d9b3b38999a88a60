package org.kvlab.protocols.m2paxos;

import org.kvlab.command.CommandClient;

/**
 * M²Paxos client: every operation is a command proposed at the server of the session's datacenter (the topology has
 * one partition). GET is a command reading its key, PUT one writing it; a transaction is one command over its keys
 * (the framework's shared command, {@link CommandClient}).
 */
final class M2PaxosClient extends CommandClient {}
