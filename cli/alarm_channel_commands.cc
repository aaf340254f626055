// gnomonctl alarm-channel create|list|get|update|delete|test: the chat robots
// jobs send their alarms to (AlarmTargets.channels). Anyone reads them (the
// url's origin, never the secret); writing or testing one takes an admin
// token. update reads the channel, replaces the fields whose flags are given
// and sends it without url and secret unless those are given: the server
// keeps the stored ones (it never shows them, so they cannot be sent back).
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

int PrintChannel(CommandContext& c, const v1::AlarmChannel& channel) {
  if (c.structured()) return c.PrintMessage(channel);
  PrintAlarmChannelDetails(channel, c.env().zone, c.out());
  return kExitOk;
}

grpc::Status FetchChannel(CommandContext& c, const std::string& name, v1::AlarmChannel* channel) {
  v1::GetAlarmChannelRequest req;
  req.set_name(name);
  auto rpc = c.NewRpcContext();
  return c.admin().GetAlarmChannel(rpc.get(), req, channel);
}

int Create(CommandContext& c) {
  absl::StatusOr<v1::CreateAlarmChannelRequest> req =
      BuildCreateAlarmChannelRequest(c.args(), c.env().getenv, c.env().read_file);
  if (!req.ok()) return c.UsageError(req.status());
  v1::AlarmChannel created;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().CreateAlarmChannel(rpc.get(), *req, &created); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintChannel(c, created);
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListAlarmChannelsResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s =
          c.admin().ListAlarmChannels(rpc.get(), v1::ListAlarmChannelsRequest(), &resp);
      !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  PrintAlarmChannelTable(resp.channels(), c.out());
  return kExitOk;
}

int Get(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::AlarmChannel channel;
  if (grpc::Status s = FetchChannel(c, *name, &channel); !s.ok()) return c.RpcError(s);
  return PrintChannel(c, channel);
}

int Update(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  if (absl::Status s = ExpectSomeFlag(c.args(), AlarmChannelFlagSpecs()); !s.ok()) {
    return c.UsageError(s);
  }
  // Check the flags (and the secret's source) before talking to the server.
  v1::AlarmChannel probe;
  if (absl::Status s = ApplyAlarmChannelFlags(c.args(), c.env().getenv, c.env().read_file, &probe);
      !s.ok()) {
    return c.UsageError(s);
  }
  v1::UpdateAlarmChannelRequest req;
  v1::AlarmChannel* channel = req.mutable_channel();
  if (grpc::Status s = FetchChannel(c, *name, channel); !s.ok()) return c.RpcError(s);
  // The url shown is its origin only: sending it back would replace the
  // stored one. Empty keeps it, as an empty secret does.
  channel->clear_url();
  if (absl::Status s = ApplyAlarmChannelFlags(c.args(), c.env().getenv, c.env().read_file, channel);
      !s.ok()) {
    return c.UsageError(s);
  }
  v1::AlarmChannel updated;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().UpdateAlarmChannel(rpc.get(), req, &updated); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintChannel(c, updated);
}

int Delete(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::DeleteAlarmChannelRequest req;
  req.set_name(*name);
  v1::DeleteAlarmChannelResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().DeleteAlarmChannel(rpc.get(), req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted alarm channel " << *name << "\n";
  return kExitOk;
}

// Exits kExitError when the service did not take the message, so scripts
// can check a channel.
int Test(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::TestAlarmChannelRequest req;
  req.set_name(*name);
  v1::TestAlarmChannelResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().TestAlarmChannel(rpc.get(), req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) {
    const int printed = c.PrintMessage(resp);
    return printed != kExitOk || resp.delivered() ? printed : kExitError;
  }
  if (resp.delivered()) {
    c.out() << "delivered\n";
    return kExitOk;
  }
  return c.Fail(
      absl::StrCat("not delivered: ", resp.error().empty() ? "(no reason given)" : resp.error()));
}

}  // namespace

std::vector<Command> AlarmChannelCommands() {
  return {
      {"alarm-channel", "create",
       "NAME --kind KIND [--url URL] [--secret-env VAR | --secret-file PATH] [--chat-id ID] "
       "[--template TEXT | --template-file PATH]",
       "Create an alarm channel: a chat robot jobs name in --alarm-channel (admin). The secret "
       "comes from an environment variable or a file, never the command line.",
       AlarmChannelFlagSpecs(),
       "gnomonctl alarm-channel create ops-dingtalk --kind dingtalk \\\n"
       "  --url 'https://oapi.dingtalk.com/robot/send?access_token=...' --secret-env "
       "DINGTALK_SECRET\n"
       "gnomonctl alarm-channel create ops-slack --kind slack --url "
       "https://hooks.slack.com/services/T0/B0/XXXX\n"
       "gnomonctl alarm-channel create oncall-tg --kind telegram --secret-file ~/.tg-bot-token "
       "--chat-id -1001234567890",
       Create},
      {"alarm-channel",
       "list",
       "",
       "List the alarm channels: kind, url origin, whether a secret is stored, chat, template.",
       {},
       "gnomonctl alarm-channel list\ngnomonctl alarm-channel list -o yaml",
       List},
      {"alarm-channel",
       "get",
       "NAME",
       "Show one alarm channel with its template (the url's origin only, never the secret).",
       {},
       "gnomonctl alarm-channel get ops-dingtalk",
       Get},
      {"alarm-channel", "update", "NAME [alarm-channel create flags]",
       "Change an alarm channel; only the given flags change, and the url and secret are kept "
       "unless given (admin).",
       AlarmChannelFlagSpecs(),
       "gnomonctl alarm-channel update ops-dingtalk --secret-env DINGTALK_SECRET\n"
       "gnomonctl alarm-channel update ops-slack --template-file alarm.txt\n"
       "gnomonctl alarm-channel update ops-slack --template ''",
       Update},
      {"alarm-channel",
       "delete",
       "NAME",
       "Delete an alarm channel; refused while a job names it (admin).",
       {},
       "gnomonctl alarm-channel delete ops-slack",
       Delete},
      {"alarm-channel",
       "test",
       "NAME",
       "Send a test alarm through the channel now: prints delivered, or the service's answer and "
       "exits 1 (admin).",
       {},
       "gnomonctl alarm-channel test ops-dingtalk",
       Test},
  };
}

}  // namespace gnomon::cli
