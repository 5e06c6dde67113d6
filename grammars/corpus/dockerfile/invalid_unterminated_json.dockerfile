FROM alpine
CMD ["sh", "-c"
