// The message table: every runtime message, declared once.
//
//   X(id, enumerator, name, payload struct, tag)
//
// id          the type's number on the wire (MsgHeader::type). Dense from 1
//             and in table order (checked at compile time, wire.h), so a
//             new message goes at the end; an id is never reused for an
//             unrelated message (7 and 8 changed meaning together when
//             the barrier stopped meeting at rank 0: BARR is still the
//             barrier's notice-carrying message, and BARRSTALL took the
//             retired BARRGRANT's place).
// enumerator  its MsgType enumerator.
// name        its name in statistics keys (msgs_sent_<name>), protocol
//             error reports and fuzz-corpus file names: capitals only.
// struct      its payload: a struct of protocol/messages.h whose fields()
//             lists the fields, from which the encoder and the checked
//             decoder are made. Only protocol/ and above expand this
//             column; the transport names messages and counts them, and
//             never sees a payload.
// tag         who receives it: kTagRequest, the service thread, which
//             hands it to the one server with an on() overload for the
//             struct (runtime/service.cc); kTagReply, the application
//             thread, which waits for it where it sent the request;
//             kTagPeer, the application thread too, but read only where
//             the receiver expects that message (a barrier round, a
//             lock hand-over at unlock), never
//             among replies.
//
// Everything else that depends on the set of messages is made from this
// list: MsgType, msg_type_name, the traffic counters and their statistics
// keys, Service::dispatch, the unit tests, and the fuzz target and corpus
// (docs/ARCHITECTURE.md, "How to add a message").
#pragma once

#define SCOPEDSM_MESSAGES(X)                                          \
  X(1, kGetPage, "GETP", GetPageMsg, kTagRequest)                     \
  X(2, kDiff, "DIFF", DiffMsg, kTagRequest)                           \
  X(3, kDiffAck, "DIFFGRANT", DiffAckMsg, kTagReply)                  \
  X(4, kAcquire, "ACQ", AcquireMsg, kTagRequest)                      \
  X(5, kAcquireGrant, "ACQGRANT", AcquireGrantMsg, kTagReply)         \
  X(6, kRelease, "REL", ReleaseMsg, kTagRequest)                      \
  X(7, kBarrier, "BARR", BarrierMsg, kTagPeer)                        \
  X(8, kBarrierStall, "BARRSTALL", BarrierStallMsg, kTagRequest)      \
  X(9, kWait, "WAIT", WaitMsg, kTagRequest)                           \
  X(10, kWaitGrant, "WAITGRANT", WaitGrantMsg, kTagReply)             \
  X(11, kCvSet, "SETCV", CvSetMsg, kTagRequest)                       \
  X(12, kCvReset, "RESETCV", CvResetMsg, kTagRequest)                 \
  X(13, kCvWait, "WAITCV", CvWaitMsg, kTagRequest)                    \
  X(14, kCvGrant, "CVGRANT", CvGrantMsg, kTagReply)                   \
  X(15, kCollective, "COLL", CollectiveMsg, kTagRequest)              \
  X(16, kCollectiveDone, "COLLGRANT", CollectiveDoneMsg, kTagReply)   \
  X(17, kHomeClaim, "HOMECLAIM", HomeClaimMsg, kTagRequest)           \
  X(18, kHomeIs, "HOMEIS", HomeIsMsg, kTagReply)                      \
  X(19, kShutdown, "SHUTDOWN", ShutdownMsg, kTagRequest)              \
  X(20, kAck, "ACK", AckMsg, kTagReply)                               \
  X(21, kHandoff, "HANDOFF", HandoffMsg, kTagPeer)                    \
  X(22, kAtomic, "ATOMIC", AtomicMsg, kTagRequest)                    \
  X(23, kAtomicResult, "ATOMICRES", AtomicResultMsg, kTagReply)       \
  X(24, kAmoNotify, "AMONOTIFY", AmoNotifyMsg, kTagPeer)              \
  X(25, kGetPageVec, "GETPV", GetPageVecMsg, kTagRequest)             \
  X(26, kRecordCopies, "RECORD", RecordCopiesMsg, kTagRequest)       \
  X(27, kSyncWait, "SYNCWAIT", SyncWaitMsg, kTagRequest)             \
  X(28, kSyncDone, "SYNCDONE", SyncDoneMsg, kTagRequest)             \
  X(29, kSyncProbe, "SYNCPROBE", SyncProbeMsg, kTagRequest)          \
  X(30, kSyncState, "SYNCSTATE", SyncStateMsg, kTagRequest)          \
  /* a new message goes on a line of its own just above this one */
