# The chainvisor container image: the release binary (a Node.js single executable, no Node.js needed)
# on a base made from Debian's packages by scripts/image-base.sh (C and C++ runtime, tini, CA
# certificates, a non-root user; no shell). Build it with `npm run image`, which builds the base and
# passes it as BASE; see docs/container.md.
ARG BASE
FROM ${BASE}
ARG VERSION
ARG BINARY=release/chainvisor-linux-x64
LABEL org.opencontainers.image.title="chainvisor" \
      org.opencontainers.image.description="Supervises a Cosmos-SDK node and switches its binary at upgrade heights" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY ${BINARY} /usr/local/bin/chainvisor
ENV DAEMON_HOME=/home/chainvisor
WORKDIR /home/chainvisor
USER 10001:10001
# tini is PID 1: it passes SIGTERM/SIGINT to chainvisor (which stops the node within
# DAEMON_SHUTDOWN_GRACE), reaps processes orphaned by the node, and exits with chainvisor's status.
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/chainvisor"]
# The node with --home at DAEMON_HOME: without it an SDK node keeps its data in $HOME/.<app>.
CMD ["run", "start", "--home", "/home/chainvisor"]
