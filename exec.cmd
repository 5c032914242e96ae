@rem package.json runs its servers as "exec node ...": a POSIX shell then hands its place to node, so that
@rem the signals npm passes on (SIGINT, SIGTERM) reach node instead of a shell that swallows them. Windows'
@rem cmd.exe has no exec command and finds this file in the package's folder instead: it runs the rest.
@%*
