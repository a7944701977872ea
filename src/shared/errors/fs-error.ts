/**
 * An operating-system error met while examining the layout, translated where it happens: the path,
 * what the error means for the operator, and exit 78 (the layout cannot work as it is). A symbolic
 * link loop, a path that crosses a file, or a folder chainvisor may not read are things an operator
 * fixes on disk; they never travel up to be reported as a bug.
 */
import { ChainvisorError } from './chainvisor-error.js';
import { ExitCode } from './exit-codes.js';

const meanings: Record<string, { what: string; hint: string }> = {
  ELOOP: { what: 'is a symbolic link loop', hint: 'remove the link or point it at a real file or folder' },
  EACCES: { what: 'cannot be accessed (permission denied)', hint: 'give the user chainvisor runs as access to it and the folders above it' },
  EPERM: { what: 'cannot be accessed (operation not permitted)', hint: 'give the user chainvisor runs as access to it and the folders above it' },
  ENOTDIR: { what: 'has a file where a folder is expected on its path', hint: 'move the file aside so that every folder on the path is a folder' },
  EEXIST: { what: 'is in the way (something already exists there)', hint: 'move it aside, then run the command again' },
  ENOSPC: {
    what: 'cannot be written: the disk is full (of bytes or of inodes)',
    hint: 'free space or inodes on that filesystem (df -h and df -i show which), then run the command again',
  },
  EDQUOT: { what: 'cannot be written: the disk quota is exhausted', hint: 'free space or raise the quota, then run the command again' },
  EROFS: { what: 'cannot be written: the filesystem is read-only', hint: 'mount it read-write, or point DAEMON_HOME at a writable folder' },
  EISDIR: { what: 'is a folder where a file is expected', hint: 'move the folder aside, then run the command again' },
};

/** Which part of `file` is too long: one name over 255 bytes, or the whole path over 4095. */
function tooLong(file: string): { what: string; hint: string } {
  const longest = file.split('/').reduce((a, b) => (Buffer.byteLength(b) > Buffer.byteLength(a) ? b : a), '');
  const bytes = Buffer.byteLength(longest);
  if (bytes > 255) {
    return {
      what: `has a name of ${bytes} bytes (${JSON.stringify(longest.length > 40 ? `${longest.slice(0, 40)}…` : longest)}), more than the 255 a file name may have`,
      hint: "shorten that name: if it is a folder of DAEMON_HOME, DAEMON_DATA_BACKUP_DIR or DAEMON_NAME, change the setting; if it is an upgrade's folder, its name comes from the chain's upgrade proposal (see CHAINVISOR_BAD_PLAN_NAME)",
    };
  }
  return {
    what: `is a path of ${Buffer.byteLength(file)} bytes, longer than this system accepts (4095)`,
    hint: 'use a shorter DAEMON_HOME or DAEMON_DATA_BACKUP_DIR (fewer, shorter folders)',
  };
}

/** A coded error for `error` met at `file`; `action` says what was being done ("examine", "create"). */
export function layoutFsError(file: string, action: string, error: NodeJS.ErrnoException, exitCode: number = ExitCode.config): ChainvisorError {
  const code = error.code ?? 'EIO';
  const meaning = (code === 'ENAMETOOLONG' ? tooLong(file) : meanings[code]) ?? {
    what: `cannot be used: ${error.message}`,
    hint: 'check the filesystem and the permissions of the path',
  };
  return new ChainvisorError('CHAINVISOR_LAYOUT_INVALID', `${file} ${meaning.what} (${code} while trying to ${action} it)`, {
    hint: meaning.hint,
    exitCode: exitCode as (typeof ExitCode)[keyof typeof ExitCode],
    cause: error,
  });
}
